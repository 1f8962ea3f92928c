#!/usr/bin/env python3
# fe_rules.py — derives the symmetric quadrature rules of runtime/fe_ref.c
# to 40 digits: the orbit structure and starting values of Dunavant 1985
# ("High degree efficient symmetrical Gaussian quadrature rules for the
# triangle", IJNME 21) and of the 14-point degree-5 tetrahedron rule
# (Walkington 2000, "Quadrature on simplices of arbitrary dimension";
# also in Keast 1986), refined by Gauss-Newton on the moment equations
# ∫ x^a y^b (z^c) over the unit simplex = a! b! c! / (a + b + c + d)!
# for every monomial up to the rule's degree.  Prints C initialisers.
# Needs mpmath.  Run: python3 doc/fe_rules.py
from mpmath import mp, mpf, matrix, lu_solve, factorial
import itertools

mp.dps = 40

def orbit(kind, p):
    """Points in barycentric coordinates for an orbit, dropping λ0."""
    if kind == 's3':
        pts = [(mpf(1) / 3,) * 3]
    elif kind == 's21':
        a = p[0]
        pts = set(itertools.permutations((a, a, 1 - 2 * a)))
    elif kind == 's111':
        a, b = p
        pts = set(itertools.permutations((a, b, 1 - a - b)))
    elif kind == 's4':
        pts = [(mpf(1) / 4,) * 4]
    elif kind == 's31':
        a = p[0]
        pts = set(itertools.permutations((a, a, a, 1 - 3 * a)))
    elif kind == 's22':
        a = p[0]
        pts = set(itertools.permutations((a, a, mpf(1) / 2 - a, mpf(1) / 2 - a)))
    return [q[1:] for q in sorted(pts)]

NPAR = {'s3': 0, 's21': 1, 's111': 2, 's4': 0, 's31': 1, 's22': 1}

def unpack(struct, v):
    out, i = [], 0
    for kind in struct:
        n = NPAR[kind]
        out.append((kind, v[i:i + n], v[i + n]))
        i += n + 1
    return out

def monomials(d, p):
    return [e for e in itertools.product(range(p + 1), repeat=d) if sum(e) <= p]

def exact(e):
    num = mpf(1)
    for a in e:
        num *= factorial(a)
    return num / factorial(sum(e) + len(e))

def residual(struct, v, d, p):
    r = []
    orbs = unpack(struct, v)
    for e in monomials(d, p):
        s = mpf(0)
        for kind, par, w in orbs:
            for q in orbit(kind, par):
                t = w
                for x, a in zip(q, e):
                    t *= x ** a
                s += t
        r.append(s - exact(e))
    return r

def solve(struct, v, d, p):
    v = [mpf(x) for x in v]
    for it in range(60):
        r = residual(struct, v, d, p)
        h = mpf(10) ** -25
        J = matrix(len(r), len(v))
        for j in range(len(v)):
            vp = list(v)
            vp[j] += h
            rp = residual(struct, vp, d, p)
            for i in range(len(r)):
                J[i, j] = (rp[i] - r[i]) / h
        JT = J.T
        dx = lu_solve(JT * J, -(JT * matrix(r)))
        v = [v[j] + dx[j] for j in range(len(v))]
        if max(abs(x) for x in dx) < mpf(10) ** -32:
            break
    res = max(abs(x) for x in residual(struct, v, d, p))
    return v, res

RULES = [
    # name, dim, degree, structure, start (weights for measure 1, scaled below)
    ('tri4', 2, 4, ['s21', 's21'],
     [0.445948490915965, 0.223381589678011, 0.091576213509771, 0.109951743655322]),
    ('tri6', 2, 6, ['s21', 's21', 's111'],
     [0.249286745170910, 0.116786275726379, 0.063089014491502, 0.050844906370207,
      0.053145049844817, 0.310352451033784, 0.082851075618374]),
    ('tri8', 2, 8, ['s3', 's21', 's21', 's21', 's111'],
     [0.144315607677787, 0.459292588292723, 0.095091634267285,
      0.170569307751760, 0.103217370534718, 0.050547228317031, 0.032458497623198,
      0.008394777409958, 0.263112829634638, 0.027230314174435]),
    ('tet5', 3, 5, ['s31', 's31', 's22'],
     [0.0927352503108912, 0.0734930431163619, 0.3108859192633006, 0.1126879257180159,
      0.0455037041256496, 0.0425460207770815]),
]

for name, d, p, struct, start in RULES:
    scale = mpf(1) / factorial(d)
    v, i = list(start), 0
    for kind in struct:  # weights to the simplex's measure
        i += NPAR[kind]
        v[i] = mpf(v[i]) * scale
        i += 1
    v, res = solve(struct, v, d, p)
    npts = sum(len(orbit(k, par)) for k, par, w in unpack(struct, v))
    print('/* %s: degree %d, %d points, residual %s */' % (name, p, npts, mp.nstr(res, 3)))
    for kind, par, w in unpack(struct, v):
        print('  %s %s w %s' % (kind, ' '.join(mp.nstr(x, 20) for x in par), mp.nstr(w, 20)))
