//! The plan briefing: what the system prompt says of the current plan
//! before each model call while the agent's plans are enabled.

use crate::plans::{Plan, graph};

/// The sentence `autoCreate` adds while no plan is open.
pub const AUTO_CREATE_HINT: &str =
    "For a request that needs several steps, call plan_create before acting.";

/// The current plan as the system prompt shows it.
pub fn describe(plan: &Plan) -> String {
    let mut text = format!(
        "Current plan \"{}\" ({}):",
        plan.title,
        plan.status.as_str()
    );
    for todo in &plan.todos {
        let after: Vec<String> = todo.depends_on.iter().map(ToString::to_string).collect();
        let after = if after.is_empty() {
            String::new()
        } else {
            format!("; after {}", after.join(", "))
        };
        text.push_str(&format!(
            "\n- [{}] {} (id {}{after})",
            todo.status.as_str(),
            todo.content,
            todo.id
        ));
    }
    let ready: Vec<String> = graph::ready(plan)
        .iter()
        .map(|t| t.id.to_string())
        .collect();
    let ready = if ready.is_empty() {
        "none".to_owned()
    } else {
        ready.join(", ")
    };
    text.push_str(&format!("\nReady: {ready}"));
    text
}
