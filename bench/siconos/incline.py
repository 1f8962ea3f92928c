# bench/siconos/incline.py — Siconos' MoreauJeanOSI(0.5) + FrictionContact
# (2-D, its default solver, tolerance 1e-14) on the block of
# bench/incline.dyn: a unit mass on a plane inclined at alpha = 0.4,
# Coulomb friction mu, released at rest; coordinates (s, n) along and
# normal to the plane.  s(T) = g (sin alpha - mu cos alpha) T^2 / 2 when
# mu < tan alpha (sliding), else 0 (sticking).
#   python3 bench/siconos/incline.py TAU T MU
# prints the steps, s(T), its error and the time per step of the loop.
import math
import sys
import time

import siconos.kernel as sk

tau = float(sys.argv[1])
T = float(sys.argv[2])
mu = float(sys.argv[3])
g, alpha = 9.81, 0.4
block = sk.LagrangianLinearTIDS([0.0, 0.0], [0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]])
block.setFExtPtr([g * math.sin(alpha), -g * math.cos(alpha)])
inter = sk.Interaction(sk.NewtonImpactFrictionNSL(0.0, 0.0, mu, 2),
                       sk.LagrangianLinearTIR([[0.0, 1.0], [1.0, 0.0]]))
nsds = sk.NonSmoothDynamicalSystem(0.0, T)
nsds.insertDynamicalSystem(block)
nsds.link(inter, block)
fc = sk.FrictionContact(2)
fc.numericsSolverOptions().iparam[0] = 100
fc.numericsSolverOptions().dparam[0] = 1e-14
sim = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, tau), sk.MoreauJeanOSI(0.5), fc)
start = time.perf_counter()
n = 0
while sim.hasNextEvent():
    sim.computeOneStep()
    sim.nextStep()
    n += 1
elapsed = time.perf_counter() - start
exact = 0.5 * g * (math.sin(alpha) - mu * math.cos(alpha)) * T * T if mu < math.tan(alpha) else 0.0
s = block.q()[0]
print("%d %.17g %.3e %.3f" % (n, s, s - exact, 1e6 * elapsed / n))
