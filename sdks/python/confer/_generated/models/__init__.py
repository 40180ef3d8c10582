"""Contains all the data models used in inputs/outputs"""

from .action_body_type_0 import ActionBodyType0
from .action_body_type_0_kind import ActionBodyType0Kind
from .action_body_type_1 import ActionBodyType1
from .action_body_type_1_kind import ActionBodyType1Kind
from .add_participant import AddParticipant
from .add_todos import AddTodos
from .adopted_server import AdoptedServer
from .agent_analytics import AgentAnalytics
from .agent_suggestions import AgentSuggestions
from .agent_view import AgentView
from .agent_view_tool_profiles_type_0 import AgentViewToolProfilesType0
from .analytics import Analytics
from .anthropic_overrides import AnthropicOverrides
from .archive_view import ArchiveView
from .attach import Attach
from .attach_integration import AttachIntegration
from .attach_skill import AttachSkill
from .attached_integration import AttachedIntegration
from .attached_integrations import AttachedIntegrations
from .attached_list import AttachedList
from .attached_mcp import AttachedMcp
from .auth_challenge import AuthChallenge
from .auth_challenge_event import AuthChallengeEvent
from .b_tree_map import BTreeMap
from .backend import Backend
from .begin_form import BeginForm
from .budget import Budget
from .budget_body import BudgetBody
from .budget_view import BudgetView
from .button_fields import ButtonFields
from .button_run import ButtonRun
from .button_run_input_type_0 import ButtonRunInputType0
from .button_run_started import ButtonRunStarted
from .button_settings import ButtonSettings
from .button_trigger import ButtonTrigger
from .cache_body import CacheBody
from .cancel_session import CancelSession
from .cancelled import Cancelled
from .capability import Capability
from .channel_kind import ChannelKind
from .channel_settings import ChannelSettings
from .channel_status import ChannelStatus
from .channel_view import ChannelView
from .channels_webhook_body import ChannelsWebhookBody
from .child_trace import ChildTrace
from .chunk import Chunk
from .citation import Citation
from .citation_event import CitationEvent
from .citation_view import CitationView
from .cluster_report import ClusterReport
from .code_agent_deleted import CodeAgentDeleted
from .code_agent_input import CodeAgentInput
from .code_agent_view import CodeAgentView
from .code_computer_view import CodeComputerView
from .code_computer_view_env import CodeComputerViewEnv
from .compaction_config import CompactionConfig
from .compaction_event import CompactionEvent
from .compaction_view import CompactionView
from .completion_webhook import CompletionWebhook
from .computer_config_view import ComputerConfigView
from .computer_config_view_env import ComputerConfigViewEnv
from .computer_deleted import ComputerDeleted
from .contact_view import ContactView
from .context_block_type_0 import ContextBlockType0
from .context_block_type_0_type import ContextBlockType0Type
from .context_block_type_1 import ContextBlockType1
from .context_block_type_1_type import ContextBlockType1Type
from .context_block_type_2 import ContextBlockType2
from .context_block_type_2_type import ContextBlockType2Type
from .context_block_type_3 import ContextBlockType3
from .context_block_type_3_type import ContextBlockType3Type
from .context_block_type_4 import ContextBlockType4
from .context_block_type_4_type import ContextBlockType4Type
from .context_block_type_5 import ContextBlockType5
from .context_block_type_5_type import ContextBlockType5Type
from .context_block_type_6 import ContextBlockType6
from .context_block_type_6_type import ContextBlockType6Type
from .context_block_type_7 import ContextBlockType7
from .context_block_type_7_type import ContextBlockType7Type
from .context_view import ContextView
from .create_agent import CreateAgent
from .create_channel import CreateChannel
from .create_integration import CreateIntegration
from .create_key import CreateKey
from .create_mcp import CreateMcp
from .create_memory import CreateMemory
from .create_org import CreateOrg
from .create_plan import CreatePlan
from .create_plan_todo import CreatePlanTodo
from .create_project import CreateProject
from .create_session import CreateSession
from .create_thread import CreateThread
from .create_thread_metadata_type_0 import CreateThreadMetadataType0
from .create_thread_resource_bindings_type_0_item import CreateThreadResourceBindingsType0Item
from .create_tool import CreateTool
from .create_trigger import CreateTrigger
from .create_visitor_thread import CreateVisitorThread
from .created_key import CreatedKey
from .created_org import CreatedOrg
from .credential_view import CredentialView
from .credentials import Credentials
from .credentials_body import CredentialsBody
from .credentials_body_env import CredentialsBodyEnv
from .credentials_body_headers import CredentialsBodyHeaders
from .daily_view import DailyView
from .delegate_input import DelegateInput
from .delegate_view import DelegateView
from .delegated_usage import DelegatedUsage
from .delegation_view import DelegationView
from .deleted import Deleted
from .delivery import Delivery
from .delivery_status import DeliveryStatus
from .deps import Deps
from .describe_answer import DescribeAnswer
from .describe_body import DescribeBody
from .detach import Detach
from .detach_integration import DetachIntegration
from .detach_skill import DetachSkill
from .detect_answer import DetectAnswer
from .detect_body import DetectBody
from .diff_file import DiffFile
from .diff_view import DiffView
from .disconnected import Disconnected
from .display_names import DisplayNames
from .document_status import DocumentStatus
from .document_view import DocumentView
from .document_view_embedding_type_0 import DocumentViewEmbeddingType0
from .done_event import DoneEvent
from .embeddings_view import EmbeddingsView
from .embeddings_view_reembed_type_0 import EmbeddingsViewReembedType0
from .entry_source import EntrySource
from .error_body import ErrorBody
from .error_body_error import ErrorBodyError
from .error_event import ErrorEvent
from .execute_tool import ExecuteTool
from .executed import Executed
from .fetch_settings import FetchSettings
from .for_server import ForServer
from .generate_agent_suggestions import GenerateAgentSuggestions
from .generate_suggestions import GenerateSuggestions
from .history_page import HistoryPage
from .identity import Identity
from .if_busy_body import IfBusyBody
from .install_skill import InstallSkill
from .instance import Instance
from .instance_state import InstanceState
from .integration_list import IntegrationList
from .integration_view import IntegrationView
from .invite import Invite
from .invite_request import InviteRequest
from .join_request import JoinRequest
from .key_role import KeyRole
from .key_view import KeyView
from .knowledge_config import KnowledgeConfig
from .knowledge_config_view import KnowledgeConfigView
from .knowledge_mode import KnowledgeMode
from .limits_mode import LimitsMode
from .limits_view import LimitsView
from .listed_server import ListedServer
from .listed_tool import ListedTool
from .listing import Listing
from .managed_item import ManagedItem
from .mcp_list import McpList
from .mcp_view import McpView
from .member import Member
from .member_input import MemberInput
from .member_list import MemberList
from .memory_config import MemoryConfig
from .memory_config_view import MemoryConfigView
from .memory_scope import MemoryScope
from .memory_source import MemorySource
from .memory_view import MemoryView
from .message_view import MessageView
from .meta_event import MetaEvent
from .missed import Missed
from .model_view import ModelView
from .multiplayer_view import MultiplayerView
from .named import Named
from .neighbours import Neighbours
from .network import Network
from .network_mode import NetworkMode
from .node_report import NodeReport
from .o_auth_client_body import OAuthClientBody
from .ok import Ok
from .open_ai_overrides import OpenAiOverrides
from .org_settings_view import OrgSettingsView
from .org_view import OrgView
from .output_mode import OutputMode
from .overlap import Overlap
from .participant_list import ParticipantList
from .participant_role import ParticipantRole
from .participant_view import ParticipantView
from .patch_session import PatchSession
from .patch_trigger import PatchTrigger
from .period_view import PeriodView
from .persistence import Persistence
from .plan import Plan
from .plan_config import PlanConfig
from .plan_config_view import PlanConfigView
from .plan_list import PlanList
from .plan_status import PlanStatus
from .profile_switch_proposal_event import ProfileSwitchProposalEvent
from .profile_view import ProfileView
from .project_role import ProjectRole
from .project_view import ProjectView
from .proposal import Proposal
from .proposal_usage import ProposalUsage
from .public_chat_config import PublicChatConfig
from .publication_body import PublicationBody
from .publication_body_limits_type_0 import PublicationBodyLimitsType0
from .publication_mode import PublicationMode
from .publication_status import PublicationStatus
from .publication_view import PublicationView
from .published_chat import PublishedChat
from .put_agent_suggestions import PutAgentSuggestions
from .put_capabilities import PutCapabilities
from .put_compaction import PutCompaction
from .put_computer_config import PutComputerConfig
from .put_computer_config_env_type_0 import PutComputerConfigEnvType0
from .put_credentials import PutCredentials
from .put_delegation import PutDelegation
from .put_embeddings import PutEmbeddings
from .put_fetch import PutFetch
from .put_knowledge_config import PutKnowledgeConfig
from .put_memory_config import PutMemoryConfig
from .put_multiplayer import PutMultiplayer
from .put_org_settings import PutOrgSettings
from .put_plan_config import PutPlanConfig
from .put_profile import PutProfile
from .put_search import PutSearch
from .put_suggestions import PutSuggestions
from .put_tasks import PutTasks
from .put_web_config import PutWebConfig
from .qr_answer import QrAnswer
from .queued_event import QueuedEvent
from .readiness import Readiness
from .recall_body import RecallBody
from .recent_firing import RecentFiring
from .registry_server import RegistryServer
from .registry_server_packages_item import RegistryServerPackagesItem
from .remote import Remote
from .remote_header import RemoteHeader
from .remove_member import RemoveMember
from .remove_participant import RemoveParticipant
from .remove_request import RemoveRequest
from .repository_input import RepositoryInput
from .repository_kind import RepositoryKind
from .repository_view import RepositoryView
from .requires_action_event import RequiresActionEvent
from .resume_run import ResumeRun
from .role import Role
from .run import Run
from .run_error import RunError
from .run_event import RunEvent
from .run_event_metadata import RunEventMetadata
from .run_event_output_type_0 import RunEventOutputType0
from .run_event_pending_tool_calls_item import RunEventPendingToolCallsItem
from .run_metadata import RunMetadata
from .run_output_type_0 import RunOutputType0
from .run_pending_tool_calls_item import RunPendingToolCallsItem
from .run_status import RunStatus
from .run_status_event import RunStatusEvent
from .run_trigger import RunTrigger
from .run_usage import RunUsage
from .runner import Runner
from .runner_body import RunnerBody
from .runner_body_client_tools_type_0_item import RunnerBodyClientToolsType0Item
from .runner_body_input_schema_type_0 import RunnerBodyInputSchemaType0
from .runner_body_metadata_type_0 import RunnerBodyMetadataType0
from .runner_body_output_schema_type_0 import RunnerBodyOutputSchemaType0
from .runner_client_tools_item import RunnerClientToolsItem
from .runner_input_schema import RunnerInputSchema
from .runner_metadata import RunnerMetadata
from .runner_output_schema_type_0 import RunnerOutputSchemaType0
from .runner_suggestions import RunnerSuggestions
from .runner_webhook_body import RunnerWebhookBody
from .runner_with_secret import RunnerWithSecret
from .runtime_kind import RuntimeKind
from .runtime_provider import RuntimeProvider
from .schedule_draft import ScheduleDraft
from .schedule_draft_input_type_0 import ScheduleDraftInputType0
from .schedule_trigger import ScheduleTrigger
from .scheduled_task import ScheduledTask
from .scope_filter import ScopeFilter
from .search_answer import SearchAnswer
from .search_body import SearchBody
from .search_mode import SearchMode
from .search_result_view import SearchResultView
from .search_view import SearchView
from .send_message import SendMessage
from .send_message_metadata_type_0 import SendMessageMetadataType0
from .service import Service
from .services import Services
from .session_message import SessionMessage
from .session_request import SessionRequest
from .session_sent import SessionSent
from .session_status import SessionStatus
from .session_status_event import SessionStatusEvent
from .session_user import SessionUser
from .session_view import SessionView
from .set_services import SetServices
from .settings_change import SettingsChange
from .size_class import SizeClass
from .skill_attachment_view import SkillAttachmentView
from .skill_entry import SkillEntry
from .skill_file_entry import SkillFileEntry
from .skill_source import SkillSource
from .skill_view import SkillView
from .skill_view_metadata import SkillViewMetadata
from .skipped import Skipped
from .source import Source
from .source_ref import SourceRef
from .span import Span
from .span_attributes import SpanAttributes
from .span_kind import SpanKind
from .span_status import SpanStatus
from .stale_body import StaleBody
from .stale_body_current import StaleBodyCurrent
from .start_run import StartRun
from .start_run_input_type_0 import StartRunInputType0
from .start_run_metadata_type_0 import StartRunMetadataType0
from .started import Started
from .status import Status
from .stop_body import StopBody
from .stop_reason import StopReason
from .stopped import Stopped
from .suggestion import Suggestion
from .suggestion_body import SuggestionBody
from .suggestion_body_input_type_0 import SuggestionBodyInputType0
from .suggestion_source import SuggestionSource
from .summary import Summary
from .sync_outcome import SyncOutcome
from .sync_status import SyncStatus
from .synced import Synced
from .task_action_type_0 import TaskActionType0
from .task_action_type_0_kind import TaskActionType0Kind
from .task_action_type_1 import TaskActionType1
from .task_action_type_1_kind import TaskActionType1Kind
from .task_body import TaskBody
from .template import Template
from .template_tool_profiles import TemplateToolProfiles
from .tested import Tested
from .thinking_body import ThinkingBody
from .thinking_event import ThinkingEvent
from .thread_computer import ThreadComputer
from .thread_kind import ThreadKind
from .thread_origin import ThreadOrigin
from .thread_page import ThreadPage
from .thread_view import ThreadView
from .thread_view_metadata import ThreadViewMetadata
from .today import Today
from .todo import Todo
from .todo_input import TodoInput
from .todo_list import TodoList
from .todo_status import TodoStatus
from .token_event import TokenEvent
from .tool_analytics import ToolAnalytics
from .tool_call import ToolCall
from .tool_call_event import ToolCallEvent
from .tool_definition import ToolDefinition
from .tool_executing_event import ToolExecutingEvent
from .tool_list import ToolList
from .tool_output_event import ToolOutputEvent
from .tool_profile import ToolProfile
from .tool_progress import ToolProgress
from .tool_progress_data import ToolProgressData
from .tool_progress_event import ToolProgressEvent
from .tool_progress_event_data import ToolProgressEventData
from .tool_result_body import ToolResultBody
from .tool_result_event import ToolResultEvent
from .tool_result_event_result import ToolResultEventResult
from .tool_summary import ToolSummary
from .tool_view import ToolView
from .trace import Trace
from .trace_page_view import TracePageView
from .trace_status import TraceStatus
from .trace_view import TraceView
from .trigger import Trigger
from .trigger_kind import TriggerKind
from .trigger_with_secrets import TriggerWithSecrets
from .turn_gap_event import TurnGapEvent
from .update_agent import UpdateAgent
from .update_agent_tool_profiles_type_0 import UpdateAgentToolProfilesType0
from .update_channel import UpdateChannel
from .update_mcp import UpdateMcp
from .update_plan import UpdatePlan
from .update_project import UpdateProject
from .update_thread import UpdateThread
from .update_thread_metadata_type_0 import UpdateThreadMetadataType0
from .update_todo import UpdateTodo
from .update_tool import UpdateTool
from .uploaded import Uploaded
from .usage import Usage
from .usage_page import UsagePage
from .usage_purpose import UsagePurpose
from .usage_today import UsageToday
from .usage_view import UsageView
from .usage_view_iterations_type_0_item import UsageViewIterationsType0Item
from .usage_view_metadata import UsageViewMetadata
from .use_answer import UseAnswer
from .use_body import UseBody
from .user_message_view import UserMessageView
from .visibility import Visibility
from .visitor_participant import VisitorParticipant
from .visitor_participants import VisitorParticipants
from .visitor_send import VisitorSend
from .visitor_session import VisitorSession
from .visitor_stopped import VisitorStopped
from .visitor_thread import VisitorThread
from .visitor_thread_page import VisitorThreadPage
from .watching_event import WatchingEvent
from .web_config_view import WebConfigView
from .webhook_draft import WebhookDraft
from .webhook_settings import WebhookSettings
from .who_can_invite import WhoCanInvite

__all__ = (
    "ActionBodyType0",
    "ActionBodyType0Kind",
    "ActionBodyType1",
    "ActionBodyType1Kind",
    "AddParticipant",
    "AddTodos",
    "AdoptedServer",
    "AgentAnalytics",
    "AgentSuggestions",
    "AgentView",
    "AgentViewToolProfilesType0",
    "Analytics",
    "AnthropicOverrides",
    "ArchiveView",
    "Attach",
    "AttachIntegration",
    "AttachSkill",
    "AttachedIntegration",
    "AttachedIntegrations",
    "AttachedList",
    "AttachedMcp",
    "AuthChallenge",
    "AuthChallengeEvent",
    "BTreeMap",
    "Backend",
    "BeginForm",
    "Budget",
    "BudgetBody",
    "BudgetView",
    "ButtonFields",
    "ButtonRun",
    "ButtonRunInputType0",
    "ButtonRunStarted",
    "ButtonSettings",
    "ButtonTrigger",
    "CacheBody",
    "CancelSession",
    "Cancelled",
    "Capability",
    "ChannelKind",
    "ChannelSettings",
    "ChannelStatus",
    "ChannelView",
    "ChannelsWebhookBody",
    "ChildTrace",
    "Chunk",
    "Citation",
    "CitationEvent",
    "CitationView",
    "ClusterReport",
    "CodeAgentDeleted",
    "CodeAgentInput",
    "CodeAgentView",
    "CodeComputerView",
    "CodeComputerViewEnv",
    "CompactionConfig",
    "CompactionEvent",
    "CompactionView",
    "CompletionWebhook",
    "ComputerConfigView",
    "ComputerConfigViewEnv",
    "ComputerDeleted",
    "ContactView",
    "ContextBlockType0",
    "ContextBlockType0Type",
    "ContextBlockType1",
    "ContextBlockType1Type",
    "ContextBlockType2",
    "ContextBlockType2Type",
    "ContextBlockType3",
    "ContextBlockType3Type",
    "ContextBlockType4",
    "ContextBlockType4Type",
    "ContextBlockType5",
    "ContextBlockType5Type",
    "ContextBlockType6",
    "ContextBlockType6Type",
    "ContextBlockType7",
    "ContextBlockType7Type",
    "ContextView",
    "CreateAgent",
    "CreateChannel",
    "CreateIntegration",
    "CreateKey",
    "CreateMcp",
    "CreateMemory",
    "CreateOrg",
    "CreatePlan",
    "CreatePlanTodo",
    "CreateProject",
    "CreateSession",
    "CreateThread",
    "CreateThreadMetadataType0",
    "CreateThreadResourceBindingsType0Item",
    "CreateTool",
    "CreateTrigger",
    "CreateVisitorThread",
    "CreatedKey",
    "CreatedOrg",
    "CredentialView",
    "Credentials",
    "CredentialsBody",
    "CredentialsBodyEnv",
    "CredentialsBodyHeaders",
    "DailyView",
    "DelegateInput",
    "DelegateView",
    "DelegatedUsage",
    "DelegationView",
    "Deleted",
    "Delivery",
    "DeliveryStatus",
    "Deps",
    "DescribeAnswer",
    "DescribeBody",
    "Detach",
    "DetachIntegration",
    "DetachSkill",
    "DetectAnswer",
    "DetectBody",
    "DiffFile",
    "DiffView",
    "Disconnected",
    "DisplayNames",
    "DocumentStatus",
    "DocumentView",
    "DocumentViewEmbeddingType0",
    "DoneEvent",
    "EmbeddingsView",
    "EmbeddingsViewReembedType0",
    "EntrySource",
    "ErrorBody",
    "ErrorBodyError",
    "ErrorEvent",
    "ExecuteTool",
    "Executed",
    "FetchSettings",
    "ForServer",
    "GenerateAgentSuggestions",
    "GenerateSuggestions",
    "HistoryPage",
    "Identity",
    "IfBusyBody",
    "InstallSkill",
    "Instance",
    "InstanceState",
    "IntegrationList",
    "IntegrationView",
    "Invite",
    "InviteRequest",
    "JoinRequest",
    "KeyRole",
    "KeyView",
    "KnowledgeConfig",
    "KnowledgeConfigView",
    "KnowledgeMode",
    "LimitsMode",
    "LimitsView",
    "ListedServer",
    "ListedTool",
    "Listing",
    "ManagedItem",
    "McpList",
    "McpView",
    "Member",
    "MemberInput",
    "MemberList",
    "MemoryConfig",
    "MemoryConfigView",
    "MemoryScope",
    "MemorySource",
    "MemoryView",
    "MessageView",
    "MetaEvent",
    "Missed",
    "ModelView",
    "MultiplayerView",
    "Named",
    "Neighbours",
    "Network",
    "NetworkMode",
    "NodeReport",
    "OAuthClientBody",
    "Ok",
    "OpenAiOverrides",
    "OrgSettingsView",
    "OrgView",
    "OutputMode",
    "Overlap",
    "ParticipantList",
    "ParticipantRole",
    "ParticipantView",
    "PatchSession",
    "PatchTrigger",
    "PeriodView",
    "Persistence",
    "Plan",
    "PlanConfig",
    "PlanConfigView",
    "PlanList",
    "PlanStatus",
    "ProfileSwitchProposalEvent",
    "ProfileView",
    "ProjectRole",
    "ProjectView",
    "Proposal",
    "ProposalUsage",
    "PublicChatConfig",
    "PublicationBody",
    "PublicationBodyLimitsType0",
    "PublicationMode",
    "PublicationStatus",
    "PublicationView",
    "PublishedChat",
    "PutAgentSuggestions",
    "PutCapabilities",
    "PutCompaction",
    "PutComputerConfig",
    "PutComputerConfigEnvType0",
    "PutCredentials",
    "PutDelegation",
    "PutEmbeddings",
    "PutFetch",
    "PutKnowledgeConfig",
    "PutMemoryConfig",
    "PutMultiplayer",
    "PutOrgSettings",
    "PutPlanConfig",
    "PutProfile",
    "PutSearch",
    "PutSuggestions",
    "PutTasks",
    "PutWebConfig",
    "QrAnswer",
    "QueuedEvent",
    "Readiness",
    "RecallBody",
    "RecentFiring",
    "RegistryServer",
    "RegistryServerPackagesItem",
    "Remote",
    "RemoteHeader",
    "RemoveMember",
    "RemoveParticipant",
    "RemoveRequest",
    "RepositoryInput",
    "RepositoryKind",
    "RepositoryView",
    "RequiresActionEvent",
    "ResumeRun",
    "Role",
    "Run",
    "RunError",
    "RunEvent",
    "RunEventMetadata",
    "RunEventOutputType0",
    "RunEventPendingToolCallsItem",
    "RunMetadata",
    "RunOutputType0",
    "RunPendingToolCallsItem",
    "RunStatus",
    "RunStatusEvent",
    "RunTrigger",
    "RunUsage",
    "Runner",
    "RunnerBody",
    "RunnerBodyClientToolsType0Item",
    "RunnerBodyInputSchemaType0",
    "RunnerBodyMetadataType0",
    "RunnerBodyOutputSchemaType0",
    "RunnerClientToolsItem",
    "RunnerInputSchema",
    "RunnerMetadata",
    "RunnerOutputSchemaType0",
    "RunnerSuggestions",
    "RunnerWebhookBody",
    "RunnerWithSecret",
    "RuntimeKind",
    "RuntimeProvider",
    "ScheduleDraft",
    "ScheduleDraftInputType0",
    "ScheduleTrigger",
    "ScheduledTask",
    "ScopeFilter",
    "SearchAnswer",
    "SearchBody",
    "SearchMode",
    "SearchResultView",
    "SearchView",
    "SendMessage",
    "SendMessageMetadataType0",
    "Service",
    "Services",
    "SessionMessage",
    "SessionRequest",
    "SessionSent",
    "SessionStatus",
    "SessionStatusEvent",
    "SessionUser",
    "SessionView",
    "SetServices",
    "SettingsChange",
    "SizeClass",
    "SkillAttachmentView",
    "SkillEntry",
    "SkillFileEntry",
    "SkillSource",
    "SkillView",
    "SkillViewMetadata",
    "Skipped",
    "Source",
    "SourceRef",
    "Span",
    "SpanAttributes",
    "SpanKind",
    "SpanStatus",
    "StaleBody",
    "StaleBodyCurrent",
    "StartRun",
    "StartRunInputType0",
    "StartRunMetadataType0",
    "Started",
    "Status",
    "StopBody",
    "StopReason",
    "Stopped",
    "Suggestion",
    "SuggestionBody",
    "SuggestionBodyInputType0",
    "SuggestionSource",
    "Summary",
    "SyncOutcome",
    "SyncStatus",
    "Synced",
    "TaskActionType0",
    "TaskActionType0Kind",
    "TaskActionType1",
    "TaskActionType1Kind",
    "TaskBody",
    "Template",
    "TemplateToolProfiles",
    "Tested",
    "ThinkingBody",
    "ThinkingEvent",
    "ThreadComputer",
    "ThreadKind",
    "ThreadOrigin",
    "ThreadPage",
    "ThreadView",
    "ThreadViewMetadata",
    "Today",
    "Todo",
    "TodoInput",
    "TodoList",
    "TodoStatus",
    "TokenEvent",
    "ToolAnalytics",
    "ToolCall",
    "ToolCallEvent",
    "ToolDefinition",
    "ToolExecutingEvent",
    "ToolList",
    "ToolOutputEvent",
    "ToolProfile",
    "ToolProgress",
    "ToolProgressData",
    "ToolProgressEvent",
    "ToolProgressEventData",
    "ToolResultBody",
    "ToolResultEvent",
    "ToolResultEventResult",
    "ToolSummary",
    "ToolView",
    "Trace",
    "TracePageView",
    "TraceStatus",
    "TraceView",
    "Trigger",
    "TriggerKind",
    "TriggerWithSecrets",
    "TurnGapEvent",
    "UpdateAgent",
    "UpdateAgentToolProfilesType0",
    "UpdateChannel",
    "UpdateMcp",
    "UpdatePlan",
    "UpdateProject",
    "UpdateThread",
    "UpdateThreadMetadataType0",
    "UpdateTodo",
    "UpdateTool",
    "Uploaded",
    "Usage",
    "UsagePage",
    "UsagePurpose",
    "UsageToday",
    "UsageView",
    "UsageViewIterationsType0Item",
    "UsageViewMetadata",
    "UseAnswer",
    "UseBody",
    "UserMessageView",
    "Visibility",
    "VisitorParticipant",
    "VisitorParticipants",
    "VisitorSend",
    "VisitorSession",
    "VisitorStopped",
    "VisitorThread",
    "VisitorThreadPage",
    "WatchingEvent",
    "WebConfigView",
    "WebhookDraft",
    "WebhookSettings",
    "WhoCanInvite",
)
