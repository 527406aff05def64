"""Shared fixtures of the npukit Python tests: the source tree's programs."""
import os
import pathlib

import pytest

SRC = pathlib.Path(os.environ.get("NPK_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture
def src():
    return SRC


@pytest.fixture
def firmware():
    """The build's rvnpu firmware directory (ELFs with symbols), or skip."""
    d = os.environ.get("NPK_RVNPU_FIRMWARE_DIR")
    if not d or not pathlib.Path(d, "hello.elf").exists():
        pytest.skip("no rvnpu firmware built (NPK_RVNPU_FIRMWARE_DIR)")
    return pathlib.Path(d)
