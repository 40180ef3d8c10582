//! Black-box tests: the real `confer` binary, spoken to over HTTP.
//! One test binary with feature modules links once.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

mod agents;
mod auth;
mod configs;
mod conversation;
mod durability;
mod errors;
mod mock;
mod operations;
mod participants;
mod resolver;
mod threads;
mod tools;
mod vendors;
