"""Loaders for the tool-retrieval benchmarks in `../shared/benchmarks` (see its README).

Each gives one `RetrievalDataset`: the tool catalogue as `ToolSpec`s and the test queries with
their gold tools. The `-dev` datasets hold queries disjoint from every test split (ToolE queries
outside the test sample, Seal-Tools `dev.jsonl`, a sample of the ToolLens train split):
retrieval parameters are chosen on them, never on a test split. Gold tools are compared by
`gold_key`: the tool key, except on LiveMCPBench, whose annotations name tools without their
server (so the tool name is compared there).

A user's own benchmark is read by `evals/own_benchmark.py`.
"""

from __future__ import annotations

import csv
import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from toolweave.catalog.sources import SEAL_TYPES, load_catalogue, slug
from toolweave.errors import InputError
from toolweave.evals.metrics import Gold, alternatives
from toolweave.types import ServerInfo, ToolSpec

T = TypeVar("T")
SPLITS = ("dev", "test")
DATASETS = ("toole-single", "toole-multi", "seal-in", "seal-out", "toollens", "livemcp")
DEV_DATASETS = ("toole-dev", "seal-dev", "toollens-dev")
TOOLE_SINGLE_SAMPLE = 2000  # the size of the baseline test sample
TOOLE_DEV_SAMPLE = 1000
TOOLLENS_DEV_SAMPLE = 1000


@dataclass(frozen=True)
class EvalQuery:
    id: str
    text: str
    gold: Gold  # tool keys, or sets of alternative keys (evals/metrics.py)


@dataclass
class RetrievalDataset:
    name: str
    servers: list[ServerInfo]
    tools: list[ToolSpec]
    queries: list[EvalQuery]
    by_name: bool = False  # gold tools are tool names, not server.tool keys
    # Real queries per tool key from a split disjoint from these queries (the "warm" index).
    logged: dict[str, list[str]] = field(default_factory=dict)
    # The folder its indexes are kept in (default: its name up to the first "-", so the splits
    # of one benchmark share them; indexes are keyed by the tools' content within it).
    index_folder: str = ""

    def gold_key(self, tool_key: str) -> str:
        return tool_key.split(".", 1)[1] if self.by_name else tool_key


def load_dataset(
    name: str, root: Path, *, limit: int | None = None, seed: int = 0
) -> RetrievalDataset:
    loaders: dict[str, Callable[[Path], RetrievalDataset]] = {
        "toole-single": lambda r: _toole_single(r, dev=False),
        "toole-dev": lambda r: _toole_single(r, dev=True),
        "toole-multi": _toole_multi,
        "seal-in": lambda r: _seal(r, "test_in_domain"),
        "seal-out": lambda r: _seal(r, "test_out_domain"),
        "seal-dev": lambda r: _seal(r, "dev"),
        "toollens": lambda r: _toollens(r, "test"),
        "toollens-dev": lambda r: _toollens(r, "dev"),
        "livemcp": _livemcp,
    }
    if name not in loaders:
        known = ", ".join(DATASETS + DEV_DATASETS)
        raise InputError(f"unknown dataset {name!r}; choose from {known}")
    if not root.is_dir():
        raise InputError(
            f"benchmark folder {root} does not exist: "
            "set TOOLWEAVE_BENCHMARKS_DIR or the benchmarks_dir setting"
        )
    dataset = loaders[name](root)
    if limit is not None and limit < len(dataset.queries):
        dataset.queries = random.Random(seed).sample(dataset.queries, limit)
    return dataset


def seeded_half(items: Sequence[T], split: str, seed: int, key: Callable[[T], str]) -> list[T]:
    """The development or test half of a benchmark without one, by a fixed seed; the same
    whatever order the items come in."""
    if split not in SPLITS:
        raise InputError(f"unknown split {split!r}: choose dev or test")
    order = sorted(items, key=key)
    random.Random(seed).shuffle(order)
    half = len(order) // 2
    return order[:half] if split == "dev" else order[half:]


def read_file(path: Path) -> str:
    if not path.is_file():
        raise InputError(f"benchmark file {path} is missing")
    return path.read_text(encoding="utf-8")


def _toole_tools(root: Path) -> list[ToolSpec]:
    descriptions = json.loads(read_file(root / "metatool" / "plugin_des.json"))
    return [
        ToolSpec(server="toole", name=name, description=text) for name, text in descriptions.items()
    ]


def _toole_single(root: Path, *, dev: bool) -> RetrievalDataset:
    """The fixed 2,000-query test sample, or a 1,000-query dev sample of the other queries."""
    rows = csv.DictReader(read_file(root / "metatool" / "data" / "all_clean_data.csv").splitlines())
    queries = [
        EvalQuery(id=f"toole-{i}", text=row["Query"], gold=frozenset({f"toole.{row['Tool']}"}))
        for i, row in enumerate(rows)
    ]
    test = random.Random(0).sample(queries, min(TOOLE_SINGLE_SAMPLE, len(queries)))
    taken = {q.text for q in test}  # by text: the file repeats some queries
    rest = [q for q in queries if q.text not in taken]
    name = "toole-dev" if dev else "toole-single"
    chosen = random.Random(1).sample(rest, min(TOOLE_DEV_SAMPLE, len(rest))) if dev else test
    logged = {} if dev else _by_tool(rest)  # the dev sample is drawn from `rest`
    return RetrievalDataset(
        name, [ServerInfo(name="toole")], _toole_tools(root), chosen, logged=logged
    )


def _by_tool(queries: list[EvalQuery]) -> dict[str, list[str]]:
    by_tool: dict[str, list[str]] = {}
    for query in queries:
        for key in sorted({k for entry in query.gold for k in alternatives(entry)}):
            by_tool.setdefault(key, []).append(query.text)
    return by_tool


def _toole_multi(root: Path) -> RetrievalDataset:
    items = json.loads(read_file(root / "metatool" / "data" / "multi_tool_query_golden.json"))
    queries = [
        EvalQuery(
            id=f"toole-multi-{i}",
            text=item["query"],
            gold=frozenset(f"toole.{t}" for t in item["tool"]),
        )
        for i, item in enumerate(items)
    ]
    single = _toole_single(root, dev=False)  # its tools; its queries are disjoint from these
    return RetrievalDataset(
        "toole-multi", single.servers, single.tools, queries, logged=single.logged
    )


def _seal(root: Path, split: str) -> RetrievalDataset:
    """Seal-Tools queries of `split` (test_in_domain, test_out_domain or dev)."""
    servers, tools = load_catalogue(root / "seal_tools" / "tool.jsonl")
    name = {"test_in_domain": "seal-in", "test_out_domain": "seal-out"}.get(split, "seal-dev")
    logged = _by_tool(_seal_queries(root, "dev", tools)) if split != "dev" else {}
    return RetrievalDataset(name, servers, tools, _seal_queries(root, split, tools), logged=logged)


def _seal_queries(root: Path, split: str, tools: list[ToolSpec]) -> list[EvalQuery]:
    key_of = {t.name: t.key for t in tools}
    queries = []
    for line in read_file(root / "seal_tools" / f"{split}.jsonl").splitlines():
        if line.strip():
            item = json.loads(line)
            gold = frozenset(key_of[c["api"]] for c in item["calling"] if c["api"] in key_of)
            if gold:
                queries.append(EvalQuery(id=item["id"], text=item["query"], gold=gold))
    return queries


def _toollens(root: Path, split: str) -> RetrievalDataset:
    """ToolLens test queries (logged: the train split), or a dev sample of train, over its 464
    APIs."""
    folder = root / "toollens"
    tools: dict[str, ToolSpec] = {}
    for line in read_file(folder / "corpus.jsonl").splitlines():
        record = json.loads(line)
        tool = toollens_tool(record["text"])
        if any(t.key == tool.key for t in tools.values()):  # same API name within one tool
            tool = tool.model_copy(update={"name": f"{tool.name} ({record['_id']})"})
        tools[record["_id"]] = tool
    lines = read_file(folder / "queries.jsonl").splitlines()
    texts = {q["_id"]: q["text"] for q in map(json.loads, lines)}

    def queries(split: str) -> list[EvalQuery]:
        gold: dict[str, set[str]] = {}
        for line in read_file(folder / f"query_tool_{split}.txt").splitlines():
            query_id, tool_id = line.split()[:2]
            if tool_id in tools:
                gold.setdefault(query_id, set()).add(tools[tool_id].key)
        return [
            EvalQuery(id=qid, text=texts[qid], gold=frozenset(keys))
            for qid, keys in gold.items()
            if qid in texts
        ]

    servers = [ServerInfo(name=s) for s in sorted({t.server for t in tools.values()})]
    train = queries("train")
    if split == "test":
        return RetrievalDataset(
            "toollens", servers, list(tools.values()), queries("test"), logged=_by_tool(train)
        )
    # The published tune split repeats the test split line for line, so dev is drawn from train.
    dev = random.Random(1).sample(train, min(TOOLLENS_DEV_SAMPLE, len(train)))
    return RetrievalDataset("toollens-dev", servers, list(tools.values()), dev)


_TOOLLENS = re.compile(
    r"category_name:(?P<category>.*?), tool_name:(?P<tool>.*?), api_name:(?P<api>.*?), "
    r"api_description:(?P<description>.*?), required_params: (?P<required>\[.*?\]), "
    r"optional_params: (?P<optional>\[.*?\])(?:, return_schema|$)",
    re.DOTALL,
)


def toollens_tool(text: str) -> ToolSpec:
    """A ToolLens corpus entry ("category_name:..., tool_name:..., api_name:..., ...")."""
    match = _TOOLLENS.match(text)
    if not match:
        raise InputError(f"not a ToolLens corpus entry: {text[:80]!r}")
    properties: dict[str, dict[str, str]] = {}
    required: list[str] = []
    for group in ("required", "optional"):
        try:
            entries = json.loads(match[group])
        except json.JSONDecodeError:
            entries = []
        for entry in entries:
            if isinstance(entry, dict) and entry.get("name"):
                kind = str(entry.get("type", "string")).lower()
                properties[entry["name"]] = {
                    "type": SEAL_TYPES.get(kind, "string"),
                    "description": str(entry.get("description") or ""),
                }
                if group == "required":
                    required.append(entry["name"])
    return ToolSpec(
        server=slug(match["tool"]),
        name=match["api"].strip(),
        description=f"{match['description'].strip()} "
        f"({match['tool'].strip()}, {match['category'].strip()})",
        input_schema={"type": "object", "properties": properties, "required": required},
    )


def _livemcp(root: Path) -> RetrievalDataset:
    folder = root / "livemcpbench"
    servers, tools = load_catalogue(folder / "tools" / "LiveMCPTool" / "tools.json")
    names = {t.name for t in tools}
    queries = []
    for item in json.loads(read_file(folder / "annotated_data" / "all_annotations.json")):
        listed = item.get("Annotator Metadata", {}).get("Tools", "")
        gold = {re.sub(r"^\s*\d+\.\s*", "", line).strip() for line in listed.splitlines()}
        gold = {g for g in gold if g in names}
        if gold:
            queries.append(
                EvalQuery(id=item["task_id"], text=item["Question"], gold=frozenset(gold))
            )
    return RetrievalDataset("livemcp", servers, tools, queries, by_name=True)


# -- a user's own benchmark --------------------------------------------------------------------
