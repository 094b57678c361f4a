"""Provider-neutral mapping machinery: the mapper protocol, reports, policies, id rules, registry."""

from .ids import IdMap, IdRule
from .protocol import Conversion, Framing, Mapper, ModelResponse
from .registry import available, get_mapper, register, sources
from .report import POLICIES, Policy, Report, ReportEntry

__all__ = [
    "POLICIES",
    "Conversion",
    "Framing",
    "IdMap",
    "IdRule",
    "Mapper",
    "ModelResponse",
    "Policy",
    "Report",
    "ReportEntry",
    "available",
    "get_mapper",
    "register",
    "sources",
]
