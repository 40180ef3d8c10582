from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.proposal import Proposal
    from ..models.proposal_usage import ProposalUsage


T = TypeVar("T", bound="DescribeAnswer")


@_attrs_define
class DescribeAnswer:
    """`generate-description`'s answer.

    Attributes:
        model (str):
        parsed (bool): Whether the answer held a JSON object (else its text is the
            description).
        proposal (Proposal): A proposed title, description, category and tags.
        usage (ProposalUsage): The tokens a proposal call was billed.
    """

    model: str
    parsed: bool
    proposal: Proposal
    usage: ProposalUsage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        parsed = self.parsed

        proposal = self.proposal.to_dict()

        usage = self.usage.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
                "parsed": parsed,
                "proposal": proposal,
                "usage": usage,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.proposal import Proposal
        from ..models.proposal_usage import ProposalUsage

        d = dict(src_dict)
        model = d.pop("model")

        parsed = d.pop("parsed")

        proposal = Proposal.from_dict(d.pop("proposal"))

        usage = ProposalUsage.from_dict(d.pop("usage"))

        describe_answer = cls(
            model=model,
            parsed=parsed,
            proposal=proposal,
            usage=usage,
        )

        describe_answer.additional_properties = d
        return describe_answer

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
