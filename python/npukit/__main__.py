"""python3 -m npukit sweep SPEC ... (what `npukit sweep` runs): see npukit.sweeps."""
import sys

from .sweeps import main

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] != "sweep":
        print("usage: python3 -m npukit sweep SPEC [options] (see: python3 -m npukit sweep "
              "--help)", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[2:]))
