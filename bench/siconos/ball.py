# bench/siconos/ball.py — Siconos' MoreauJeanOSI(0.5) + LCP on the
# bouncing ball of bench/ball.dyn (e = 0.9, g = 9.81, from y = 1 at rest):
#   python3 bench/siconos/ball.py TAU T
# prints the steps, y(T), its error against the exact motion and the time
# per step of the stepping loop alone (Siconos' C++ kernel driven from
# Python, as its users run it).
import math
import sys
import time

import siconos.kernel as sk

tau = float(sys.argv[1])
T = float(sys.argv[2])
g, e = 9.81, 0.9


def exact(t):
    """The ball's height: free flights between impacts, each rebound at e
    times the incoming speed (Newton's law)."""
    v = math.sqrt(2 * g)          # speed at the first impact
    t1 = v / g                    # its time
    if t < t1:
        return 1 - 0.5 * g * t * t
    s = t1
    while True:
        v *= e
        flight = 2 * v / g
        if t < s + flight:
            d = t - s
            return v * d - 0.5 * g * d * d
        s += flight


ball = sk.LagrangianLinearTIDS([1.0], [0.0], [[1.0]])
ball.setFExtPtr([-g])
inter = sk.Interaction(sk.NewtonImpactNSL(e), sk.LagrangianLinearTIR([[1.0]]))
nsds = sk.NonSmoothDynamicalSystem(0.0, T)
nsds.insertDynamicalSystem(ball)
nsds.link(inter, ball)
sim = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, tau), sk.MoreauJeanOSI(0.5), sk.LCP())
start = time.perf_counter()
n = 0
while sim.hasNextEvent():
    sim.computeOneStep()
    sim.nextStep()
    n += 1
elapsed = time.perf_counter() - start
y = ball.q()[0]
print("%d %.17g %.3e %.3f" % (n, y, y - exact(T), 1e6 * elapsed / n))
