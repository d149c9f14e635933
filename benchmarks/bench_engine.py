"""Engine speed benchmark; the same as ``ttr bench`` (see src/ttr/cli/bench.py).

python benchmarks/bench_engine.py [--seconds 3] [--editions usa,europe,nordic,marklin]
"""

import argparse
import sys

from ttr.cli import bench

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=bench.HELP)
    bench.add_arguments(parser)
    sys.exit(bench.run(parser.parse_args()))
