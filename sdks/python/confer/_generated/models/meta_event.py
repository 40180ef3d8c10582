from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.user_message_view import UserMessageView


T = TypeVar("T", bound="MetaEvent")


@_attrs_define
class MetaEvent:
    """The data of a `meta` event (boxed in [`ThreadEvent`]: the token frames
    that make up most of a turn's frames stay small).

        Attributes:
            model (str):
            started_at (datetime.datetime):
            thread_id (UUID): A conversation thread on an agent.
            shadowed_tools (list[str] | Unset): Tools left out because an earlier kind has one of the same name.
            turn_kind (None | str | Unset): `prepare` on a code session's preparation turn (`computer.md` §6);
                absent on a model's turn.
            user_message (None | Unset | UserMessageView):
            user_message_id (None | Unset | UUID):
    """

    model: str
    started_at: datetime.datetime
    thread_id: UUID
    shadowed_tools: list[str] | Unset = UNSET
    turn_kind: None | str | Unset = UNSET
    user_message: None | Unset | UserMessageView = UNSET
    user_message_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.user_message_view import UserMessageView

        model = self.model

        started_at = self.started_at.isoformat()

        thread_id = str(self.thread_id)

        shadowed_tools: list[str] | Unset = UNSET
        if not isinstance(self.shadowed_tools, Unset):
            shadowed_tools = self.shadowed_tools

        turn_kind: None | str | Unset
        if isinstance(self.turn_kind, Unset):
            turn_kind = UNSET
        else:
            turn_kind = self.turn_kind

        user_message: dict[str, Any] | None | Unset
        if isinstance(self.user_message, Unset):
            user_message = UNSET
        elif isinstance(self.user_message, UserMessageView):
            user_message = self.user_message.to_dict()
        else:
            user_message = self.user_message

        user_message_id: None | str | Unset
        if isinstance(self.user_message_id, Unset):
            user_message_id = UNSET
        elif isinstance(self.user_message_id, UUID):
            user_message_id = str(self.user_message_id)
        else:
            user_message_id = self.user_message_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
                "startedAt": started_at,
                "threadId": thread_id,
            }
        )
        if shadowed_tools is not UNSET:
            field_dict["shadowedTools"] = shadowed_tools
        if turn_kind is not UNSET:
            field_dict["turnKind"] = turn_kind
        if user_message is not UNSET:
            field_dict["userMessage"] = user_message
        if user_message_id is not UNSET:
            field_dict["userMessageId"] = user_message_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.user_message_view import UserMessageView

        d = dict(src_dict)
        model = d.pop("model")

        started_at = datetime.datetime.fromisoformat(d.pop("startedAt"))

        thread_id = UUID(d.pop("threadId"))

        shadowed_tools = cast(list[str], d.pop("shadowedTools", UNSET))

        def _parse_turn_kind(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        turn_kind = _parse_turn_kind(d.pop("turnKind", UNSET))

        def _parse_user_message(data: object) -> None | Unset | UserMessageView:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                user_message_type_0 = UserMessageView.from_dict(data)

                return user_message_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UserMessageView, data)

        user_message = _parse_user_message(d.pop("userMessage", UNSET))

        def _parse_user_message_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                user_message_id_type_0 = UUID(data)

                return user_message_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        user_message_id = _parse_user_message_id(d.pop("userMessageId", UNSET))

        meta_event = cls(
            model=model,
            started_at=started_at,
            thread_id=thread_id,
            shadowed_tools=shadowed_tools,
            turn_kind=turn_kind,
            user_message=user_message,
            user_message_id=user_message_id,
        )

        meta_event.additional_properties = d
        return meta_event

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
