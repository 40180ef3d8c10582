//! A turn a public chat's visitor started (`publishing.md` rules 6–8): the
//! only tools it may run, and what it holds until it ends.

/// What a turn started through a public chat may do, and what it holds
/// until it ends (`publishing.md` rules 6–8).
pub struct PublicTurn {
    /// The publication whose visitor sent it; `None` for a runner's
    /// button run.
    pub publication: Option<crate::PublicationId>,
    /// The only server-side tools it may run (the publication's
    /// `public_tools`), under the agent's default profile; never a client
    /// tool, `propose_profile_switch`, a computer or a delegate tool.
    pub tools: Vec<String>,
    /// Released when the turn's request is dropped, at the turn's end (or a
    /// queued send's drop): the publication's running-turn slot and budget
    /// reservation.
    pub hold: Box<dyn std::any::Any + Send + Sync>,
}

impl std::fmt::Debug for PublicTurn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PublicTurn")
            .field("publication", &self.publication)
            .field("tools", &self.tools)
            .finish_non_exhaustive()
    }
}

impl PublicTurn {
    /// Whether a public turn may be offered the server-side tool `name`.
    pub fn offers(&self, name: &str) -> bool {
        let never = name == crate::tools::PROPOSE_PROFILE_SWITCH
            || name.starts_with("computer_")
            || name.starts_with("delegate__");
        !never && self.tools.iter().any(|t| t == name)
    }
}
