//! The port of org tools (`tools.md` §1), on either store: names unique in
//! their org, signing secrets sealed at rest and opened on demand.

use confer_actors::{OrgId, StoreError, StoreFuture, ToolId};
use secrecy::SecretString;

use super::SledRecords;
use crate::store::tools::{OrgTool, ToolWrite};

/// A change to a stored tool (see [`ToolRecords::update_tool`]).
pub type ToolChange = Box<dyn Fn(&mut OrgTool) + Send + Sync>;

/// Org tools.
pub trait ToolRecords: Send + Sync + 'static {
    /// Stores a new tool, its secret given in plain text and sealed here;
    /// refused when the org has a tool of that name.
    fn create_tool(&self, tool: OrgTool) -> StoreFuture<Result<OrgTool, ToolWrite>>;

    /// The org's tools, oldest first (secrets sealed).
    fn list_tools(&self, org: OrgId) -> StoreFuture<Vec<OrgTool>>;

    /// One tool of the org (secret sealed).
    fn tool(&self, org: OrgId, id: ToolId) -> StoreFuture<Option<OrgTool>>;

    /// The org's tool named `name` (secret sealed).
    fn tool_named(&self, org: OrgId, name: String) -> StoreFuture<Option<OrgTool>>;

    /// A tool's signing secret, opened (no trip to the store).
    fn tool_secret(&self, tool: &OrgTool) -> Result<SecretString, StoreError>;

    /// Changes a tool atomically (`rotate`: a new plain secret, sealed
    /// here); a tool deleted meanwhile stays deleted.
    fn update_tool(
        &self,
        org: OrgId,
        id: ToolId,
        rotate: Option<String>,
        change: ToolChange,
    ) -> StoreFuture<Result<OrgTool, ToolWrite>>;

    /// Deletes a tool; false when there was none.
    fn delete_tool(&self, org: OrgId, id: ToolId) -> StoreFuture<bool>;
}

impl ToolRecords for SledRecords {
    fn create_tool(&self, tool: OrgTool) -> StoreFuture<Result<OrgTool, ToolWrite>> {
        self.write(move |s| s.create_tool(tool))
    }

    fn list_tools(&self, org: OrgId) -> StoreFuture<Vec<OrgTool>> {
        self.read(move |s| s.list_tools(org))
    }

    fn tool(&self, org: OrgId, id: ToolId) -> StoreFuture<Option<OrgTool>> {
        self.read(move |s| s.tool(org, id))
    }

    fn tool_named(&self, org: OrgId, name: String) -> StoreFuture<Option<OrgTool>> {
        self.read(move |s| s.tool_named(org, &name))
    }

    fn tool_secret(&self, tool: &OrgTool) -> Result<SecretString, StoreError> {
        self.0.tool_secret(tool)
    }

    fn update_tool(
        &self,
        org: OrgId,
        id: ToolId,
        rotate: Option<String>,
        change: ToolChange,
    ) -> StoreFuture<Result<OrgTool, ToolWrite>> {
        self.write(move |s| s.update_tool(org, id, rotate.as_deref(), change))
    }

    fn delete_tool(&self, org: OrgId, id: ToolId) -> StoreFuture<bool> {
        self.write(move |s| s.delete_tool(org, id))
    }
}
