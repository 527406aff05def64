"""Element types of typed memory access and their conversion to and from NumPy.

The names are npukit's (docs/run-io.md): i8 u8 i16 u16 i32 u32 f32 bf16 q8.8 e4m3 e5m2, with
NumPy-style aliases (int8, float32, bfloat16, ...). Integers and f32 map onto NumPy dtypes
directly. bf16, q8.8, e4m3 and e5m2, which NumPy has no dtype for, are decoded to float32
(every value of those types is exact in float32) and encoded by libnpukit's own conversion
(round to nearest-even; q8.8 half to even; values the type cannot hold are a ValueError),
so Python and the simulator round alike.
"""

import numpy as np

from . import _core

# name -> (bytes per element, NumPy dtype of the decoded values, NumPy dtype of the raw encoding)
DTYPES = {
    "i8": (1, np.dtype("<i1"), np.dtype("<i1")),
    "u8": (1, np.dtype("<u1"), np.dtype("<u1")),
    "i16": (2, np.dtype("<i2"), np.dtype("<i2")),
    "u16": (2, np.dtype("<u2"), np.dtype("<u2")),
    "i32": (4, np.dtype("<i4"), np.dtype("<i4")),
    "u32": (4, np.dtype("<u4"), np.dtype("<u4")),
    "f32": (4, np.dtype("<f4"), np.dtype("<f4")),
    "bf16": (2, np.dtype("<f4"), np.dtype("<u2")),
    "q8.8": (2, np.dtype("<f4"), np.dtype("<i2")),
    "e4m3": (1, np.dtype("<f4"), np.dtype("<u1")),
    "e5m2": (1, np.dtype("<f4"), np.dtype("<u1")),
}

_ALIASES = {
    "int8": "i8", "uint8": "u8", "int16": "i16", "uint16": "u16", "int32": "i32",
    "uint32": "u32", "float32": "f32", "bfloat16": "bf16", "q88": "q8.8", "fp8_e4m3": "e4m3",
    "fp8_e5m2": "e5m2", "float8_e4m3": "e4m3", "float8_e5m2": "e5m2",
}
_NATIVE = {"i8", "u8", "i16", "u16", "i32", "u32", "f32"}


def canonical(dtype):
    """npukit's name of an element type given by name or NumPy dtype."""
    if isinstance(dtype, str):
        name = dtype.lower()
        name = _ALIASES.get(name, name)
        if name in DTYPES:
            return name
    else:
        try:
            d = np.dtype(dtype)
        except TypeError:
            d = None
        if d is not None:
            for name, (_, _, raw) in DTYPES.items():
                if name in _NATIVE and raw == d.newbyteorder("<"):
                    return name
    raise ValueError(f"npukit: unknown element type {dtype!r} (known: "
                     f"{', '.join(DTYPES)}, or the NumPy dtypes int8 ... float32)")


def decode(raw, dtype):
    """Little-endian bytes (any buffer) of element type dtype -> a new NumPy array."""
    name = canonical(dtype)
    size, out, enc = DTYPES[name]
    raw = bytes(raw)
    if len(raw) % size:
        raise ValueError(f"npukit: {len(raw)} bytes are not whole {name} elements")
    if name in _NATIVE:
        return np.frombuffer(raw, dtype=enc).copy()
    f64 = np.frombuffer(_core.elems_to_f64(name, raw), dtype="<f8")
    return f64.astype(out)  # exact: every value of these types is a float32


def encode(values, dtype):
    """Numbers (scalar, sequence or array) -> the little-endian bytes of element type dtype.
    Integers must be whole and in range, floats are rounded by npukit's rules; anything the
    type cannot hold is a ValueError naming the element."""
    name = canonical(dtype)
    arr = np.asarray(values)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"npukit: cannot write {arr.dtype} values as {name}")
    flat = arr.reshape(-1)
    if name in _NATIVE and arr.dtype.kind in "biu" and name != "f32":
        info = np.iinfo(DTYPES[name][2])
        if flat.size and (flat.min() < info.min or flat.max() > info.max):
            i = int(np.argmax((flat < info.min) | (flat > info.max)))
            raise ValueError(f"npukit: element {i}: {flat[i]} is out of range for {name} "
                             f"({info.min} .. {info.max})")
        return flat.astype(DTYPES[name][2]).tobytes()
    # floats, and integers into float types: through libnpukit (binary64 holds them exactly
    # up to 2^53; larger integers are rounded first by NumPy, then by the type)
    return _core.elems_from_f64(name, np.ascontiguousarray(flat, dtype="<f8").tobytes())
