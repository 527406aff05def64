"""python3 -m npukit sweep SPEC ... (what `npukit sweep` runs: npukit.sweeps) and
python3 -m npukit demo [NAME...] (each target's demo from Python: npukit.demos)."""
import sys

if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "sweep":
        from .sweeps import main
        sys.exit(main(sys.argv[2:]))
    if len(sys.argv) >= 2 and sys.argv[1] == "demo":
        from .demos import main
        sys.exit(main(sys.argv[2:]))
    print("usage: python3 -m npukit sweep SPEC [options]   (python3 -m npukit sweep --help)\n"
          "       python3 -m npukit demo [NAME...]        (python3 -m npukit demo --help)",
          file=sys.stderr)
    sys.exit(2)
