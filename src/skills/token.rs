//! A git skill's access token: sealed before either store keeps it,
//! opened only for a sync's fetch. The additional data names the skill,
//! so a sealed token copied onto another skill does not open.

use confer_actors::StoreError;

use super::Skill;
use crate::secrets::{SecretBox, aad};

fn token_aad(skill: &Skill) -> String {
    aad(
        &skill.org_id.to_string(),
        "skills",
        &skill.id.to_string(),
        "token",
    )
}

/// `skill` with its token (given in plain text) sealed.
pub fn sealed(secrets: &SecretBox, mut skill: Skill) -> Result<Skill, StoreError> {
    let aad = token_aad(&skill);
    skill.token = skill
        .token
        .map(|plain| secrets.seal(&plain, &aad))
        .transpose()
        .map_err(|e| StoreError::Engine(e.to_string()))?;
    Ok(skill)
}

/// The skill's token, opened.
pub fn open(secrets: &SecretBox, skill: &Skill) -> Result<Option<String>, StoreError> {
    skill
        .token
        .as_deref()
        .map(|sealed| {
            secrets
                .open(sealed, &token_aad(skill))
                .map(|s| secrecy::ExposeSecret::expose_secret(&s).to_owned())
                .map_err(|e| StoreError::Engine(e.to_string()))
        })
        .transpose()
}
