//! `computer_edit`: Anthropic's text editor commands over the sandbox's
//! files, read and written through the runtime and changed by
//! `crate::computer::editor`.

use confer_actors::tools::ToolOutput;
use serde::Deserialize;
use serde_json::json;

use super::{ok, unexpected};
use crate::computer::editor;
use crate::computer::runtime::Reply;
use crate::computer::service::Lease;

#[derive(Deserialize)]
pub(super) struct EditArguments {
    command: String,
    path: String,
    view_range: Option<(i64, i64)>,
    file_text: Option<String>,
    old_str: Option<String>,
    new_str: Option<String>,
    insert_line: Option<usize>,
    insert_text: Option<String>,
}

pub(super) async fn edit(lease: &Lease, arguments: &EditArguments) -> ToolOutput {
    let Some(sandbox) = lease.sandbox() else {
        return ToolOutput::error("computer unavailable: the sandbox stopped");
    };
    let path = arguments.path.clone();
    let read = || sandbox.read_file(path.clone());
    let text = |reply: Reply| match reply {
        Reply::File { content } => Ok(content),
        Reply::Dir { .. } => Err(ToolOutput::error(format!("{path} is a directory"))),
        other => Err(unexpected(other)),
    };
    let missing = |field: &str| ToolOutput::error(format!("arguments: {field} is required"));
    let change = match arguments.command.as_str() {
        "view" => {
            return match read().await {
                Reply::Dir { entries, truncated } => ok(json!({
                    "path": path,
                    "entries": entries,
                    "truncated": truncated,
                })),
                reply => match text(reply) {
                    Ok(content) => match editor::view(&content, arguments.view_range) {
                        Ok(shown) => ok(json!(shown)),
                        Err(reason) => ToolOutput::error(reason),
                    },
                    Err(output) => output,
                },
            };
        }
        "create" => {
            let Some(content) = arguments.file_text.clone() else {
                return missing("file_text");
            };
            let lines = content.lines().count();
            return match sandbox.write_file(path.clone(), content).await {
                Reply::Done => ok(json!(format!("created {path} ({lines} lines)"))),
                other => unexpected(other),
            };
        }
        "str_replace" => {
            let Some(old) = arguments.old_str.as_deref() else {
                return missing("old_str");
            };
            let new = arguments.new_str.as_deref().unwrap_or("");
            match text(read().await) {
                Ok(content) => editor::str_replace(&content, &path, old, new),
                Err(output) => return output,
            }
        }
        "insert" => {
            let (Some(line), Some(inserted)) =
                (arguments.insert_line, arguments.insert_text.as_deref())
            else {
                return missing("insert_line and insert_text");
            };
            match text(read().await) {
                Ok(content) => editor::insert(&content, line, inserted),
                Err(output) => return output,
            }
        }
        other => {
            return ToolOutput::error(format!(
                "arguments: command {other:?} is not view, create, str_replace or insert"
            ));
        }
    };
    let (content, shown) = match change {
        Ok(changed) => changed,
        Err(reason) => return ToolOutput::error(reason),
    };
    match sandbox.write_file(path.clone(), content).await {
        Reply::Done => ok(json!(format!("edited {path}:\n{shown}"))),
        other => unexpected(other),
    }
}
