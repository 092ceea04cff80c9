"""The tool graph: data flow between tools, stand-ins, and how each has fared (NaviAgent)."""

from toolweave.navigation.graph import Edge, ToolGraph

__all__ = ["Edge", "ToolGraph"]
