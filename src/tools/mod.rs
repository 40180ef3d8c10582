//! The server-side tools Confer runs itself, behind the turn's
//! [`ToolExecutor`] port: one module per kind ([`plans`]: the built-in plan
//! tools; [`webhook`]: the org's webhook tools; [`integrations`]: the
//! query tools of the agent's databases; [`mcp`]: the tools of the MCP
//! servers attached to the agent; [`knowledge`]: `search_knowledge` and
//! the knowledge briefing; [`memory`]: `remember`, `recall` and the
//! recalled memories; [`skills`]: `load_skill` and the skills' list;
//! [`computer`]: `computer_run` and `computer_edit`).
//! [`ServerToolbox`] offers them by kind
//! and sends each call to its kind.

pub mod computer;
pub mod delegate;
pub mod integrations;
pub mod knowledge;
pub mod mcp;
pub mod memory;
pub mod org_cache;
pub mod plans;
pub mod skills;
pub mod web;
pub mod webhook;

use confer_actors::ToolCall;
use confer_actors::tools::{
    AnsweredFuture, AnsweredTurn, BriefingFuture, LOAD_SKILL, NOT_AVAILABLE, OfferedFuture, RECALL,
    REMEMBER, SEARCH_KNOWLEDGE, ToolExecutor, ToolFuture, ToolOutput, ToolScope,
};

use self::computer::ComputerTools;
use self::delegate::DelegateTools;
use self::integrations::IntegrationTools;
use self::knowledge::KnowledgeTools;
use self::mcp::McpTools;
use self::memory::MemoryTools;
use self::plans::PlanTools;
use self::skills::SkillTools;
use self::web::{WEB_FETCH, WEB_SEARCH, WebTools};
use self::webhook::WebhookTools;
use crate::store::port::{PlainConfig, config_of};

/// Every kind of server-side tool.
pub struct ServerToolbox {
    plans: PlanTools,
    knowledge: KnowledgeTools,
    memory: MemoryTools,
    skills: SkillTools,
    web: WebTools,
    delegate: DelegateTools,
    webhooks: WebhookTools,
    integrations: IntegrationTools,
    mcps: McpTools,
    computer: ComputerTools,
}

impl ServerToolbox {
    /// The built-in plan, knowledge, memory and skill tools, the org's
    /// webhooks, its databases and its MCP servers.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        plans: PlanTools,
        knowledge: KnowledgeTools,
        memory: MemoryTools,
        skills: SkillTools,
        web: WebTools,
        delegate: DelegateTools,
        webhooks: WebhookTools,
        integrations: IntegrationTools,
        mcps: McpTools,
        computer: ComputerTools,
    ) -> Self {
        Self {
            plans,
            knowledge,
            memory,
            skills,
            web,
            delegate,
            webhooks,
            integrations,
            mcps,
            computer,
        }
    }
}

/// What a turn reads of its agent's web tools, skills, delegates, computer
/// and memories, in one store call (each its own was a hand-off to the
/// blocking pool per turn, counted by the instruction budget).
#[derive(Default)]
struct AgentExtras {
    /// Whether the agent keeps memories (its `remember` and `recall` tools).
    memory: bool,
    web: crate::web_tools::config::WebConfig,
    skills: Vec<std::sync::Arc<crate::skills::Skill>>,
    delegates: Vec<(delegate::config::Delegate, confer_actors::Agent)>,
    /// The computer configuration, and the agent's runtime provider when
    /// it is enabled.
    computer: crate::computer::config::ComputerConfig,
    provider: confer_actors::RuntimeProvider,
}

impl ServerToolbox {
    /// Reads the turn's [`AgentExtras`]; a failed read offers none of them.
    fn agent_extras(&self, scope: &ToolScope) -> impl Future<Output = AgentExtras> + use<> {
        let (org, agent, runner, thread) = (scope.org, scope.agent, scope.runner, scope.thread);
        let delegates = self.delegate.offers(scope);
        let store = self.delegate.store().clone();
        async move {
            // Of the extras, PostgreSQL keeps the web configuration, the
            // skills, the delegates and the memories so far. Its three
            // configurations are one statement; on sled the delegation is
            // read below.
            let read = match store.is_postgres() {
                true => {
                    let kinds = vec![
                        PlainConfig::Web,
                        PlainConfig::Delegation,
                        PlainConfig::Memory,
                    ];
                    tokio::try_join!(
                        store.configs().configs_json(org, agent, kinds),
                        skills::enabled(&store, org, agent, runner),
                    )
                    .and_then(|(configs, skills)| {
                        let mut configs = configs.into_iter();
                        let web = config_of(configs.next().flatten())?;
                        let delegation = config_of(configs.next().flatten())?;
                        let memory: crate::knowledge::memory::MemoryConfig =
                            config_of(configs.next().flatten())?;
                        let extras = AgentExtras {
                            memory: memory.enabled,
                            web,
                            skills,
                            ..AgentExtras::default()
                        };
                        Ok((extras, Some(delegation)))
                    })
                }
                false => {
                    store
                        .run(move |s| {
                            // A code session's thread has its code agent's computer.
                            let computer =
                                match crate::code::prompt::thread_computer(s, org, thread)? {
                                    Some((config, _)) => config,
                                    None => s.computer_config(org, agent)?,
                                };
                            let provider = match computer.enabled {
                                true => crate::store::SledStore::agent(s, org, agent)?
                                    .map(|a| a.runtime_provider)
                                    .unwrap_or_default(),
                                false => Default::default(),
                            };
                            let extras = AgentExtras {
                                memory: s.memory_config(org, agent)?.enabled,
                                computer,
                                provider,
                                web: s.web_config(org, agent)?,
                                skills: skills::enabled_in(s, org, agent, runner)?,
                                delegates: Vec::new(),
                            };
                            Ok::<_, confer_actors::StoreError>((extras, None))
                        })
                        .await
                }
            };
            let read = match (read, delegates) {
                (Ok((mut extras, delegation)), true) => {
                    let delegation = match delegation {
                        Some(read) => Ok(read),
                        None => delegate::delegation_config(&store, org, agent).await,
                    };
                    match delegation {
                        Ok(config) => delegate::live_of(&store, org, config).await.map(|live| {
                            extras.delegates = live;
                            extras
                        }),
                        Err(error) => Err(error),
                    }
                }
                (read, _) => read.map(|(extras, _)| extras),
            };
            read.unwrap_or_else(|error| {
                tracing::error!(%error, "reading a turn's web tools, skills, delegates, computer and memories failed");
                AgentExtras::default()
            })
        }
    }
}

/// The turn's deadline of an MCP call: its session's opening and its call
/// are each bounded by the server's timeout (at most 120 s), and a token
/// refresh by two OAuth calls of 10 s.
const MCP_DEADLINE: std::time::Duration = std::time::Duration::from_secs(2 * 120 + 30);
/// The turn's deadline of a webhook's or an integration's call: a webhook
/// bounds itself by its timeout (at most 60 s), an integration's call by
/// [`integrations::CALL_DEADLINE`]; the turn's comes after both.
const OTHER_DEADLINE: std::time::Duration = std::time::Duration::from_secs(65);

/// Whether `name` is an MCP tool's: only they have `__` (the server's slug
/// and the tool's name); org tools may not.
fn is_mcp_tool(name: &str) -> bool {
    name.contains("__")
}

impl ToolExecutor for ServerToolbox {
    fn offered(&self, scope: &ToolScope) -> OfferedFuture {
        let org = self.webhooks.offered(scope);
        let integration = self.integrations.offered(scope);
        let mcp = self.mcps.offered(scope);
        let enabled = scope.plans.enabled;
        let (knowledge, scope) = (self.knowledge.clone(), scope.clone());
        let extras = self.agent_extras(&scope);
        let computer = self.computer.clone();
        Box::pin(async move {
            let ((mut tools, integration, mcp, knowledge), extras) = futures_util::join!(
                futures_util::future::join4(org, integration, mcp, knowledge.offered(&scope)),
                extras
            );
            tools.integration = integration.integration;
            tools.mcp = mcp.mcp;
            if enabled {
                tools.builtin.extend(plans::definitions());
            }
            tools.builtin.extend(knowledge);
            let AgentExtras {
                memory,
                web,
                skills,
                delegates,
                computer: computer_config,
                provider,
            } = extras;
            if memory {
                tools.builtin.extend(memory::definitions());
            }
            tools
                .builtin
                .extend(computer.offered(&computer_config, provider).await);
            tools.builtin.extend(web::offer(&web));
            if let Some((tool, list)) = skills::offer(&skills) {
                tools.builtin.push(tool);
                tools.skills_prompt = Some(list);
            }
            tools
                .builtin
                .extend(delegates.iter().map(|(d, a)| delegate::definition(d, a)));
            tools
        })
    }

    fn execute(&self, scope: &ToolScope, call: &ToolCall) -> ToolFuture {
        if call.name == SEARCH_KNOWLEDGE {
            if !scope.knowledge.enabled {
                return Box::pin(async { ToolOutput::error(NOT_AVAILABLE) });
            }
            let (tools, scope, call) = (self.knowledge.clone(), scope.clone(), call.clone());
            return Box::pin(async move { tools.execute(scope, call).await });
        }
        if call.name == WEB_FETCH || call.name == WEB_SEARCH {
            let (tools, scope, call) = (self.web.clone(), scope.clone(), call.clone());
            return Box::pin(async move { tools.execute(scope, call).await });
        }
        if call
            .name
            .starts_with(confer_actors::delegation::TOOL_PREFIX)
        {
            let (tools, scope, call) = (self.delegate.clone(), scope.clone(), call.clone());
            return Box::pin(async move { tools.execute(scope, call).await });
        }
        if computer::is_computer_tool(&call.name) {
            let (tools, scope, call) = (self.computer.clone(), scope.clone(), call.clone());
            return Box::pin(async move { tools.execute(scope, call).await });
        }
        if call.name == LOAD_SKILL {
            let (tools, scope, call) = (self.skills.clone(), scope.clone(), call.clone());
            return Box::pin(async move { tools.execute(scope, call).await });
        }
        if call.name == REMEMBER || call.name == RECALL {
            if !scope.memory {
                return Box::pin(async { ToolOutput::error(NOT_AVAILABLE) });
            }
            let (tools, scope, call) = (self.memory.clone(), scope.clone(), call.clone());
            return Box::pin(async move { tools.execute(scope, call).await });
        }
        if !plans::is_plan_tool(&call.name) {
            // An integration's tool first (its kind comes before MCP's in
            // the offer), then by the name's shape.
            let otherwise = if is_mcp_tool(&call.name) {
                self.mcps.execute(scope, call)
            } else {
                self.webhooks.execute(scope, call)
            };
            let (integrations, scope, call) =
                (self.integrations.clone(), scope.clone(), call.clone());
            return Box::pin(async move {
                match integrations.run(&scope, &call).await {
                    Some(output) => output,
                    None => otherwise.await,
                }
            });
        }
        if !scope.plans.enabled {
            return Box::pin(async { ToolOutput::error(NOT_AVAILABLE) });
        }
        let (tools, scope, call) = (self.plans.clone(), scope.clone(), call.clone());
        Box::pin(async move { tools.execute(scope, call).await })
    }

    fn deadline(&self, call: &ToolCall) -> std::time::Duration {
        if plans::is_plan_tool(&call.name)
            || [SEARCH_KNOWLEDGE, REMEMBER, RECALL, LOAD_SKILL].contains(&call.name.as_str())
        {
            confer_actors::tools::DEFAULT_TOOL_DEADLINE
        } else if call
            .name
            .starts_with(confer_actors::delegation::TOOL_PREFIX)
        {
            self.delegate.deadline()
        } else if computer::is_computer_tool(&call.name) {
            computer::DEADLINE
        } else if is_mcp_tool(&call.name) {
            MCP_DEADLINE
        } else {
            OTHER_DEADLINE
        }
    }

    /// The plan (while plans are on), then knowledge's part, then the
    /// recalled memories.
    fn briefing(&self, scope: &ToolScope) -> BriefingFuture {
        let (plans, knowledge, memory, scope) = (
            self.plans.clone(),
            self.knowledge.clone(),
            self.memory.clone(),
            scope.clone(),
        );
        Box::pin(async move {
            let plan = match scope.plans.enabled {
                true => plans.briefing(scope.clone()).await,
                false => None,
            };
            let parts: Vec<String> = [
                plan,
                knowledge.briefing(&scope).await,
                memory.briefing(&scope).await,
            ]
            .into_iter()
            .flatten()
            .collect();
            (!parts.is_empty()).then(|| parts.join("\n\n"))
        })
    }

    /// The memories' collection, when the agent collects them.
    fn turn_answered(&self, scope: &ToolScope, turn: AnsweredTurn) -> AnsweredFuture {
        let (memory, scope) = (self.memory.clone(), scope.clone());
        Box::pin(async move { memory.turn_answered(&scope, turn).await })
    }
}
