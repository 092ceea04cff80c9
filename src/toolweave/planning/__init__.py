"""Planning: the router (how much effort), the planners (which steps, fed by what) and the plan
checks. `make_planner` and `make_router` turn the settings' names into the protocols'
implementations."""

from __future__ import annotations

from toolweave.models.base import LLM
from toolweave.planning.llm_planner import LLMPlanner
from toolweave.planning.planner import DeterministicPlanner, Planner, PlanRequest
from toolweave.planning.router import Decision, LLMRouter, Router, RulesRouter

__all__ = [
    "Decision",
    "DeterministicPlanner",
    "LLMPlanner",
    "LLMRouter",
    "PlanRequest",
    "Planner",
    "Router",
    "RulesRouter",
    "make_planner",
    "make_router",
]


def make_planner(kind: str, llm: LLM) -> Planner:
    """ask.planner: "llm" or "deterministic"."""
    return LLMPlanner(llm) if kind == "llm" else DeterministicPlanner()


def make_router(kind: str, llm: LLM) -> Router:
    """ask.router: "llm" or "rules"."""
    return LLMRouter(llm) if kind == "llm" else RulesRouter()
