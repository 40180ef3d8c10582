//! Org tools (`tools.md` §1): webhooks Confer calls for the model. A tool's
//! name is unique in its org (the `tool_names` index, kept in the same
//! transaction as the record); its signing secret is sealed at rest.

use chrono::{DateTime, Utc};
use confer_actors::{OrgId, StoreError, ToolId};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sled::Transactional;
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::codec::{decode, encode};
use super::{SledStore, abort, engine, keys, tx_error};
use crate::secrets::aad;

/// An org tool as stored (its signing secret sealed).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OrgTool {
    pub id: ToolId,
    pub org_id: OrgId,
    pub name: String,
    pub description: String,
    /// A JSON Schema object.
    pub parameters: Value,
    pub url: String,
    pub timeout_ms: u32,
    /// Sealed in the store; opened by [`SledStore::tool_secret`] only.
    pub signing_secret: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// Why a tool write did not happen.
#[derive(Debug)]
pub enum ToolWrite {
    /// Another tool of the org has the name.
    NameTaken,
    /// The tool does not exist (any more).
    Missing,
}

fn name_key(org: OrgId, name: &str) -> Vec<u8> {
    let mut key = org.as_bytes().to_vec();
    key.extend_from_slice(name.as_bytes());
    key
}

pub(crate) fn secret_aad(org: OrgId, tool: ToolId) -> String {
    aad(
        &org.to_string(),
        "tool",
        &tool.to_string(),
        "signing_secret",
    )
}

type Tx<T> = Result<T, ConflictableTransactionError<StoreError>>;

fn read(tree: &TransactionalTree, key: &[u8]) -> Tx<Option<OrgTool>> {
    tree.get(key)?
        .map(|bytes| decode(&bytes).map_err(abort))
        .transpose()
}

impl SledStore {
    fn seal_secret(&self, org: OrgId, tool: ToolId, plain: &str) -> Result<String, StoreError> {
        self.secrets
            .seal(plain, &secret_aad(org, tool))
            .map_err(|e| StoreError::Engine(e.to_string()))
    }

    /// Stores a new tool (its secret given in plain text, sealed here).
    pub fn create_tool(&self, mut tool: OrgTool) -> Result<Result<OrgTool, ToolWrite>, StoreError> {
        let _writing = self.gate.writing();
        let plain = std::mem::take(&mut tool.signing_secret);
        tool.signing_secret = self.seal_secret(tool.org_id, tool.id, &plain)?;
        let record = encode(&tool)?;
        let key = keys::pair(tool.org_id.as_bytes(), tool.id.as_bytes());
        let name = name_key(tool.org_id, &tool.name);
        let created = (&self.tools, &self.tool_names)
            .transaction(|(tools, names)| {
                if names.get(&name)?.is_some() {
                    return Ok(Err(ToolWrite::NameTaken));
                }
                names.insert(name.as_slice(), tool.id.as_bytes().as_slice())?;
                tools.insert(key.as_slice(), record.as_slice())?;
                Ok(Ok(()))
            })
            .map_err(tx_error)?;
        Ok(created.map(|()| tool))
    }

    /// The org's tools, oldest first (secrets sealed).
    pub fn list_tools(&self, org: OrgId) -> Result<Vec<OrgTool>, StoreError> {
        let mut tools = self
            .tools
            .scan_prefix(org.as_bytes())
            .map(|entry| {
                let (_, value) = entry.map_err(engine)?;
                decode::<OrgTool>(&value)
            })
            .collect::<Result<Vec<_>, _>>()?;
        tools.sort_by_key(|t| (t.created_at, t.id.as_bytes().to_owned()));
        Ok(tools)
    }

    /// One tool of the org (secret sealed).
    pub fn tool(&self, org: OrgId, id: ToolId) -> Result<Option<OrgTool>, StoreError> {
        Self::get(&self.tools, &keys::pair(org.as_bytes(), id.as_bytes()))
    }

    /// The tool of the org with `name` (secret sealed).
    pub fn tool_named(&self, org: OrgId, name: &str) -> Result<Option<OrgTool>, StoreError> {
        let Some(id) = self.tool_names.get(name_key(org, name)).map_err(engine)? else {
            return Ok(None);
        };
        let key = [org.as_bytes().as_slice(), id.as_ref()].concat();
        Self::get(&self.tools, &key)
    }

    /// A tool's signing secret, opened.
    pub fn tool_secret(&self, tool: &OrgTool) -> Result<secrecy::SecretString, StoreError> {
        open_tool_secret(&self.secrets, tool)
    }

    /// Changes a tool in one transaction: `change` gets the stored tool and
    /// returns it changed (`Some(secret)` rotates the signing secret). A
    /// tool deleted meanwhile stays deleted.
    pub fn update_tool(
        &self,
        org: OrgId,
        id: ToolId,
        rotate: Option<&str>,
        change: impl Fn(&mut OrgTool),
    ) -> Result<Result<OrgTool, ToolWrite>, StoreError> {
        let _writing = self.gate.writing();
        let sealed = rotate
            .map(|plain| self.seal_secret(org, id, plain))
            .transpose()?;
        let key = keys::pair(org.as_bytes(), id.as_bytes());
        (&self.tools, &self.tool_names)
            .transaction(|(tools, names)| {
                let Some(before) = read(tools, &key)? else {
                    return Ok(Err(ToolWrite::Missing));
                };
                let mut after = before.clone();
                change(&mut after);
                if let Some(sealed) = &sealed {
                    after.signing_secret = sealed.clone();
                }
                after.updated_at = Utc::now();
                if after.name != before.name {
                    let name = name_key(org, &after.name);
                    if names.get(&name)?.is_some() {
                        return Ok(Err(ToolWrite::NameTaken));
                    }
                    names.remove(name_key(org, &before.name))?;
                    names.insert(name, id.as_bytes().as_slice())?;
                }
                tools.insert(key.as_slice(), encode(&after).map_err(abort)?)?;
                Ok(Ok(after))
            })
            .map_err(tx_error)
    }

    /// Deletes a tool; `false` when there was none.
    pub fn delete_tool(&self, org: OrgId, id: ToolId) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::pair(org.as_bytes(), id.as_bytes());
        (&self.tools, &self.tool_names)
            .transaction(|(tools, names)| {
                let Some(before) = read(tools, &key)? else {
                    return Ok(false);
                };
                names.remove(name_key(org, &before.name))?;
                tools.remove(key.as_slice())?;
                Ok(true)
            })
            .map_err(tx_error)
    }
}

/// `tool`'s signing secret, opened with `secrets` (either store's).
pub(crate) fn open_tool_secret(
    secrets: &crate::secrets::SecretBox,
    tool: &OrgTool,
) -> Result<secrecy::SecretString, StoreError> {
    secrets
        .open(&tool.signing_secret, &secret_aad(tool.org_id, tool.id))
        .map_err(|e| StoreError::Engine(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::test_secrets;
    use secrecy::ExposeSecret;

    fn tool(org: OrgId, name: &str) -> OrgTool {
        let now = Utc::now();
        OrgTool {
            id: ToolId::new(),
            org_id: org,
            name: name.into(),
            description: String::new(),
            parameters: serde_json::json!({"type": "object"}),
            url: "https://tools.example/hook".into(),
            timeout_ms: 10_000,
            signing_secret: "cfs_plain".into(),
            created_at: now,
            updated_at: now,
        }
    }

    #[test]
    fn names_are_unique_per_org_and_secrets_are_sealed() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
        let (org, other) = (OrgId::new(), OrgId::new());
        let made = store.create_tool(tool(org, "lookup")).unwrap().unwrap();
        assert_ne!(made.signing_secret, "cfs_plain", "sealed at rest");
        assert_eq!(
            store.tool_secret(&made).unwrap().expose_secret(),
            "cfs_plain"
        );
        assert!(matches!(
            store.create_tool(tool(org, "lookup")).unwrap(),
            Err(ToolWrite::NameTaken)
        ));
        store.create_tool(tool(other, "lookup")).unwrap().unwrap();
        assert_eq!(store.list_tools(org).unwrap().len(), 1);
        assert_eq!(
            store.tool_named(org, "lookup").unwrap().unwrap().id,
            made.id
        );

        let second = store.create_tool(tool(org, "search")).unwrap().unwrap();
        let clash = store
            .update_tool(org, second.id, None, |t| t.name = "lookup".into())
            .unwrap();
        assert!(matches!(clash, Err(ToolWrite::NameTaken)));
        let renamed = store
            .update_tool(org, second.id, Some("cfs_new"), |t| t.name = "find".into())
            .unwrap()
            .unwrap();
        assert_eq!(
            store.tool_secret(&renamed).unwrap().expose_secret(),
            "cfs_new"
        );
        assert!(store.tool_named(org, "search").unwrap().is_none());
        assert!(store.delete_tool(org, second.id).unwrap());
        assert!(store.tool_named(org, "find").unwrap().is_none());
        assert!(!store.delete_tool(org, second.id).unwrap());
        let gone = store.update_tool(org, second.id, None, |_| {}).unwrap();
        assert!(
            matches!(gone, Err(ToolWrite::Missing)),
            "a deleted tool stays deleted"
        );
    }
}
