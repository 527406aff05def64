"""Shared fixtures of the npukit Python tests: the source tree's programs."""
import os
import pathlib

import pytest

SRC = pathlib.Path(os.environ.get("NPK_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture
def src():
    return SRC
