"""npukit.tinylm: the pccx tiny language model driven from Python issues the C host program's
instruction stream (examples/pccx/llm), so its text, instruction count and cycles are those of
`npukit demo pccx` and of the pccx_tinylm tool; the NumPy reference is llm_ref.c's."""
import os
import pathlib
import re
import struct
import subprocess

import numpy as np
import pytest

from npukit import tinylm

PROMPT = b"The meaning of life is "


@pytest.fixture
def weights(src):
    return src / "models/pccx_tinylm/tinylm.bin"


def build_program(*parts):
    build = os.environ.get("NPUKIT_BUILD_DIR")
    if not build or not pathlib.Path(build, *parts).exists():
        pytest.skip(f"no {'/'.join(parts)} in a build tree (NPUKIT_BUILD_DIR)")
    return str(pathlib.Path(build, *parts))


def run(*argv):
    # env without LD_PRELOAD: in the sanitizer build python3 runs with the shared ASan runtime
    # preloaded, which the (statically sanitized) programs must not inherit
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120).stdout


def quoted(label, out):
    return re.search(label + r':\s+"(.*)"', out).group(1)


def test_load_shipped_model(weights):
    # models/pccx_tinylm/README.md: vocabulary 256, D 64, 2 layers, 2 query heads and 1 KV head
    # of 32, FFN 128, context 64, RoPE base 10,000, eps 1e-6; 83,632 bytes
    lm = tinylm.load(weights)
    assert (lm.vocab, lm.dim, lm.n_layers, lm.n_heads, lm.n_kv_heads, lm.head_dim, lm.ffn,
            lm.max_pos) == (256, 64, 2, 2, 1, 32, 128, 64)
    assert lm.rope_base == 10000.0 and lm.eps == np.float32(1e-6)
    assert lm.layers[0].q.codes.shape == (64, 64) and lm.layers[1].down.codes.shape == (64, 128)
    assert lm.head.codes.shape == (256, 64) and lm.head.scale.shape == (256,)
    assert tinylm.load(weights.read_bytes()).emb.tolist() == lm.emb.tolist()


def tiny_file():
    """A valid one-layer model: vocab 256, D 16, one query and one KV head of 16, FFN 16,
    context 4; every weight 0 except Q row 0: scale 0.5, first code byte 0x8F."""
    head = b"PCXTLM01" + struct.pack("<8I2f", 256, 16, 1, 1, 1, 16, 16, 4, 10000.0, 1e-6)

    def int4(k, n, scale0=0.0, byte0=0):   # n scales, then n rows of k / 2 code bytes
        scales = struct.pack("<f", scale0) + bytes(4 * (n - 1))
        return scales + bytes([byte0]) + bytes(n * k // 2 - 1)

    norm = bytes(32)
    layer = (norm + int4(16, 16, 0.5, 0x8F) + int4(16, 16) + int4(16, 16) + int4(16, 16) + norm
             + int4(16, 16) + int4(16, 16) + int4(16, 16))
    return head + bytes(2 * 256 * 16) + layer + norm + int4(16, 256)


def test_int4_unpacking():
    # byte 0x8F: low nibble F = -1 (column 0), high nibble 8 = -8 (column 1) (pccx spec §5.4)
    lm = tinylm.load(tiny_file())
    q = lm.layers[0].q
    assert q.codes[0, :3].tolist() == [-1, -8, 0] and q.scale[:2].tolist() == [0.5, 0.0]
    # W x with x = (2, 1, 0, ...): (-1 * 2 + -8 * 1) * 0.5 = -5
    x = np.zeros(16)
    x[:2] = [2, 1]
    assert q.matvec(x)[:2].tolist() == [-5.0, 0.0]


def test_bad_files(weights):
    data = weights.read_bytes()
    with pytest.raises(ValueError, match="truncated weight file: 83631 bytes, its header's "
                                         "shapes need 83632"):
        tinylm.load(data[:-1])
    with pytest.raises(ValueError, match="oversized weight file: 83633 bytes"):
        tinylm.load(data + b"\0")
    with pytest.raises(ValueError, match="truncated weight file: 20 bytes, the header alone"):
        tinylm.load(data[:20])
    with pytest.raises(ValueError, match="not a PCXTLM01 weight file"):
        tinylm.load(b"PCXTLM02" + data[8:])
    with pytest.raises(ValueError, match="unsupported header: vocab 300"):
        tinylm.load(data[:8] + struct.pack("<I", 300) + data[12:])
    # 2 query heads, 3 KV heads (offset 8 + 4 * 4)
    with pytest.raises(ValueError, match="3 KV heads do not divide 2 query heads"):
        tinylm.load(data[:24] + struct.pack("<I", 3) + data[28:])
    lm = tinylm.load(data)
    # a 23-byte prompt + 42 tokens use positions 0 .. 63, all of the context of 64
    for f in (tinylm.generate, tinylm.reference):
        with pytest.raises(ValueError, match=r"prompt \(23 bytes\) \+ 43 tokens exceed the "
                                             "context of 64"):
            f(lm, PROMPT, 43)


def test_same_as_the_c_demo(weights):
    # `npukit demo pccx` runs the C host program on the same weights, prompt and 24 tokens
    out = run(build_program("npukit"), "demo", "pccx")
    lm = tinylm.load(weights)
    g = tinylm.generate(lm)
    assert g.generated == g.text[23:] and len(g.generated) == 24
    assert g.text.decode() == quoted("NPU", out)
    counts = re.search(r"(\d+) instructions, (\d+) cycles; engine busy: (.*)", out)
    assert (g.insns, g.cycles) == (int(counts[1]), int(counts[2]))
    assert " ".join(f"{e} {100 * f:.0f}%" for e, f in g.engine_busy.items()) == counts[3]
    per = re.search(r"timing model: (\d+) cycles per generated token", out)
    assert f"{g.cycles_per_token:.0f}" == per[1]
    hp = re.search(r"HP0-HP3: (\d+) / (\d+) / (\d+) / (\d+) bytes", out)
    assert g.hp_bytes == tuple(int(v) for v in hp.groups())
    assert len(g.position_cycles) == 23 + 24 - 1 and sum(g.position_cycles) == g.cycles
    assert g.logits.shape == (24, 256)
    assert [int(np.argmax(r)) for r in g.logits] == list(g.generated)
    # the reference: llm_ref.c's greedy text; it and the NPU agree on clear steps, and the
    # NPU's logits stay within the C tool's tolerance (0.225 x logit RMS) on the shared prefix
    r = tinylm.reference(lm)
    assert r.text.decode() == quoted("reference", out)
    assert r.logits.shape == (24, 256) and r.margins.shape == (24,)
    rms = np.sqrt(np.mean(r.logits ** 2, axis=1))
    same = next((i for i in range(24) if g.generated[i] != r.text[23 + i]), 24)
    assert np.all(np.abs(g.logits[:same] - r.logits[:same]).max(axis=1) < 0.225 * rms[:same])


def test_rope_on_the_npu_as_the_c_tool(weights):
    # the pccx_tinylm tool with --rope-device (cos/sin by CVO, pccx spec §8.3), another prompt
    tool = build_program("examples", "pccx", "pccx_tinylm")
    out = run(tool, "--rope-device", "--prompt", "Hello, ", "--tokens", "10", str(weights))
    g = tinylm.generate(tinylm.load(weights), b"Hello, ", 10, rope_host=False)
    assert g.text.decode() == quoted("NPU", out)
    counts = re.search(r"whole generation: (\d+) instructions, (\d+) cycles", out)
    assert (g.insns, g.cycles) == (int(counts[1]), int(counts[2]))
    per = re.search(r"timing model: (\d+) cycles per generated token", out)
    assert f"{g.cycles_per_token:.0f}" == per[1]
    assert tinylm.reference(tinylm.load(weights), b"Hello, ", 10).text.decode() == \
        quoted("reference", out)


def test_given_pccx_and_main(weights, capsys):
    # a Pccx passed in is used (its stats are the result's); main prints NPU and reference
    from npukit.pccx import Pccx
    p = Pccx(ext=1, host_ddr_bytes=4 << 20)
    g = tinylm.generate(tinylm.load(weights), PROMPT, 2, pccx=p)
    assert g.stats["insns"] == p.stats()["insns"] > g.insns > 0
    # the same Pccx again (generate freed its tensors): a fresh layout, the same text
    assert tinylm.generate(tinylm.load(weights), PROMPT, 2, pccx=p).text == g.text
    assert tinylm.main([str(weights)]) == 0
    out = capsys.readouterr().out
    assert quoted("NPU", out).startswith(g.text.decode())
    assert re.search(r"\d+ of 24 generated bytes equal the reference's greedy choice", out)
    assert tinylm.main([]) == 2
