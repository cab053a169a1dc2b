"""The reference peer of test_tail_scipy.c: scipy's maximum likelihood fits
of the same data. argv: a file of excesses (one a line), a file of block
maxima. Prints "gpd XI SIGMA" (genpareto, location fixed at 0) and
"gev XI MU SIGMA" (genextreme; scipy's c is -xi)."""
import sys

import numpy as np
from scipy import stats

x = np.loadtxt(sys.argv[1])
c, _, scale = stats.genpareto.fit(x, floc=0)
print("gpd %.9g %.9g" % (c, scale))
m = np.loadtxt(sys.argv[2])
# scipy's default start (c = 1, loc 0, scale 1) wanders off on maxima in
# the hundreds of thousands of ns: start it from the Gumbel moments, as ours.
s0 = np.sqrt(6) * np.std(m, ddof=1) / np.pi
c, loc, scale = stats.genextreme.fit(m, 0.0, loc=np.mean(m) - 0.5772 * s0, scale=s0)
print("gev %.9g %.9g %.9g" % (-c, loc, scale))
