//! Typed identifiers. Every resource ID is a UUID; the newtypes keep an agent ID
//! from being passed where a thread ID is expected. New IDs are UUIDv7, so they
//! sort by creation time.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema)]
        #[serde(transparent)]
        pub struct $name(pub Uuid);

        impl $name {
            /// A new, time-ordered (UUIDv7) identifier.
            pub fn new() -> Self {
                Self(Uuid::now_v7())
            }

            /// The 16 raw bytes, as used in store keys.
            pub fn as_bytes(&self) -> &[u8; 16] {
                self.0.as_bytes()
            }

            /// Rebuilds an ID from the 16 bytes of a store key.
            pub fn from_bytes(bytes: [u8; 16]) -> Self {
                Self(Uuid::from_bytes(bytes))
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.hyphenated().fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = uuid::Error;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s).map(Self)
            }
        }
    };
}

id_type!(
    /// An organization: the boundary of every other resource.
    OrgId
);
id_type!(
    /// An agent of an organization.
    AgentId
);
id_type!(
    /// A conversation thread on an agent.
    ThreadId
);
id_type!(
    /// A stored message of a thread.
    MessageId
);
id_type!(
    /// One usage (cost) record: one model call.
    UsageId
);
id_type!(
    /// An API key (the record, never the secret).
    ApiKeyId
);
id_type!(
    /// An org tool (a webhook Confer calls for the model).
    ToolId
);
id_type!(
    /// An org's MCP server (`tools.md` §6).
    McpServerId
);
id_type!(
    /// An org's database integration (`tools.md` §7).
    IntegrationId
);
id_type!(
    /// A plan of a thread (`plans.md`).
    PlanId
);
id_type!(
    /// An agent's publication as a public chat (`publishing.md`).
    PublicationId
);
id_type!(
    /// A todo of a plan.
    TodoId
);
id_type!(
    /// A project grouping an org's threads, agents and runners
    /// (`agent-extras.md` §5).
    ProjectId
);
id_type!(
    /// One turn's trace (`observability.md`).
    TraceId
);
id_type!(
    /// A knowledge document (`knowledge.md` §1).
    DocumentId
);
id_type!(
    /// An agent's memory of a user, or of every user (`knowledge.md` §5).
    MemoryId
);
id_type!(
    /// A span of a trace.
    SpanId
);
id_type!(
    /// A runner: an agent's headless pipeline (`runners.md`).
    RunnerId
);
id_type!(
    /// One run of a runner.
    RunId
);
id_type!(
    /// A runner's trigger: a webhook, a schedule or a button.
    TriggerId
);
id_type!(
    /// A skill of an org's library (`agent-extras.md` §1).
    SkillId
);
id_type!(
    /// A scheduled task of an agent, or a runner's schedule trigger
    /// (`runners.md` Scheduling).
    ScheduleId
);

id_type!(
    /// A computer instance: one sandbox of a thread (`computer.md` §2).
    InstanceId
);

id_type!(
    /// A code agent: an agent plus a repository (`computer.md` §5).
    CodeAgentId
);
id_type!(
    /// A code session: a task owning one hidden thread of a code agent
    /// (`computer.md` §6).
    CodeSessionId
);

id_type!(
    /// A messaging channel of an agent (`marketplace-channels.md` §7).
    ChannelId
);
id_type!(
    /// A person who wrote to a channel (`marketplace-channels.md` §7).
    ContactId
);
id_type!(
    /// An inbound message waiting for its turn and reply (`marketplace-channels.md` §8).
    ChannelJobId
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_through_strings_and_bytes() {
        let id = ThreadId::new();
        let parsed: ThreadId = id.to_string().parse().unwrap();
        assert_eq!(parsed, id);
        assert_eq!(ThreadId::from_bytes(*id.as_bytes()), id);
        assert!("not-a-uuid".parse::<ThreadId>().is_err());
    }

    #[test]
    fn new_ids_sort_by_creation() {
        let a = MessageId::new();
        let b = MessageId::new();
        assert!(a < b);
    }
}
