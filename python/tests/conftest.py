# pytest suites of the training and reference scripts (`npm run test:python`; needs scripts/ci-deps.sh's packages).
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for sub in ("scripts/train", "scripts/synth", "scripts/reference"):
    sys.path.insert(0, os.path.join(ROOT, sub))
