//! Black-box tests: the real `confer` binary, spoken to over HTTP.
//! One test binary with feature modules links once.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

mod agents;
mod aimock;
mod api_description;
mod auth;
mod backups;
mod browser;
mod cli;
mod compaction;
mod configs;
mod conversation;
mod durability;
mod embeddings;
mod errors;
mod integrations;
mod knowledge;
mod knowledge_turns;
mod limits;
mod llmock;
mod mcp;
mod mcp_oauth;
mod mcp_stdio;
mod memories;
mod mock;
mod observability;
mod operations;
mod org_tools;
mod outbound;
mod pages;
mod participants;
mod plan_changes;
mod plan_tools;
mod plans;
mod postgres;
mod prompt_caching;
mod publishing;
mod resolver;
mod roles;
mod runners;
mod secrets;
mod stream_correctness;
mod streams;
mod summary_compaction;
mod third_party;
mod threads;
mod tool_steps;
mod tools;
mod vendor_options;
mod vendor_rig;
mod vendors;
mod visitor_chats;
mod visitor_limits;
mod visitors;
