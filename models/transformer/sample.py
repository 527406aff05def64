#!/usr/bin/python3
"""Load an exported weight blob back into the PyTorch model of train.py and generate greedily
from a prompt, the way the firmware does (context 32, first maximum wins). With --logits it
also prints the logits of the first prediction, one "index value" line each, which can be
compared with `tf_ref --logits` (examples/rvnpu/transformer): the two differ only by float
rounding (torch sums in another order), a check that the blob layout and the firmware's
computation are the model that was trained."""
import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train as T  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("prompt", help="prompt text (1..32 bytes)")
    ap.add_argument("-w", "--weights", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                             "weights.bin"),
                    help="weight blob (default: %(default)s)")
    ap.add_argument("--logits", action="store_true", help="print the first prediction's logits")
    args = ap.parse_args()
    prompt = args.prompt.encode()
    if not 1 <= len(prompt) <= T.CTX:
        T.die("the prompt must be 1..%d bytes" % T.CTX)
    try:
        import torch
    except ImportError:
        T.die("python3-torch is required (Debian package python3-torch)")
    torch.set_num_threads(1)
    try:
        with open(args.weights, "rb") as f:
            blob = f.read()
    except OSError as e:
        T.die("cannot read %s: %s" % (args.weights, e.strerror))
    if len(blob) != 4 * T.N_PARAMS:
        T.die("%s has %d bytes, expected %d" % (args.weights, len(blob), 4 * T.N_PARAMS))
    vals = torch.tensor(struct.unpack("<%df" % T.N_PARAMS, blob))
    model = T.build_model(torch, 0.0)
    model.eval()
    off = 0
    with torch.no_grad():
        for t in model.export_tensors():
            t.copy_(vals[off:off + t.numel()].view_as(t))
            off += t.numel()
        seq = list(prompt)
        out = bytearray()
        while True:
            logits = model(torch.tensor([seq]))[0, -1]
            if args.logits and not out:
                for i, v in enumerate(logits.tolist()):
                    print(i, "%.9g" % v, file=sys.stderr)
            c = int(torch.argmax(logits).item())  # the first maximum
            out.append(c)
            if len(seq) >= T.CTX:
                break
            seq.append(c)
    sys.stdout.buffer.write(prompt + b"\n> " + bytes(out) + b"\n")


if __name__ == "__main__":
    main()
