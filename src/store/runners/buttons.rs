//! Runners' buttons (see `crate::runners::button`).
//!
//! | tree             | key                  | value                    |
//! |------------------|----------------------|--------------------------|
//! | `runner_buttons` | runner               | `Button` (one per runner) |
//! |                  | runner ++ day u32 BE | u64 BE: runs it started that UTC day |
//!
//! Keyed by the runner alone: the public routes know only the runner's id,
//! and the button tells them its org. A run's view token is kept on the
//! run itself (`RunRecord::view_token`), written with it.

use chrono::NaiveDate;
use confer_actors::{OrgId, RunnerId, StoreError, TriggerId};

use crate::runners::button::Button;
use crate::runners::triggers::MAX_TRIGGERS_PER_RUNNER;
use crate::store::codec::{decode, encode};
use crate::store::update::{Updated, swap};
use crate::store::{SledStore, engine, keys};

fn day_key(runner: RunnerId, day: NaiveDate) -> [u8; 20] {
    let number = u32::try_from((day - NaiveDate::default()).num_days()).unwrap_or(0);
    let mut key = [0u8; 20];
    key[..16].copy_from_slice(runner.as_bytes());
    key[16..].copy_from_slice(&number.to_be_bytes());
    key
}

impl SledStore {
    /// Stores a runner's new button; `false` if it has one already or
    /// [`MAX_TRIGGERS_PER_RUNNER`] triggers of the other kinds.
    pub fn put_button(&self, button: &Button) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let (org, runner) = (button.org_id, button.runner_id);
        let held = self.triggers(org, runner)?.len() + self.runner_schedule_count(org, runner)?;
        if held >= MAX_TRIGGERS_PER_RUNNER {
            return Ok(false);
        }
        let stored = self
            .runners
            .buttons
            .compare_and_swap(
                button.runner_id.as_bytes(),
                None::<&[u8]>,
                Some(encode(button)?),
            )
            .map_err(engine)?;
        Ok(stored.is_ok())
    }

    /// 1 if the runner has a button, else 0 (it counts among the
    /// runner's triggers).
    pub fn buttons_of(&self, runner: RunnerId) -> Result<usize, StoreError> {
        let held = self
            .runners
            .buttons
            .contains_key(runner.as_bytes())
            .map_err(engine)?;
        Ok(usize::from(held))
    }

    /// The runner's button, of any org (the public routes' lookup).
    pub fn button(&self, runner: RunnerId) -> Result<Option<Button>, StoreError> {
        Self::get(&self.runners.buttons, runner.as_bytes())
    }

    /// The runner's button if it is `org`'s and its id is `id`.
    pub fn org_button(
        &self,
        org: OrgId,
        runner: RunnerId,
        id: Option<TriggerId>,
    ) -> Result<Option<Button>, StoreError> {
        Ok(self
            .button(runner)?
            .filter(|b| b.org_id == org && id.is_none_or(|id| b.id == id)))
    }

    /// Changes the button `id` of `org`'s runner (compare-and-swap).
    pub fn update_button<E>(
        &self,
        org: OrgId,
        runner: RunnerId,
        id: TriggerId,
        change: impl FnMut(Button) -> Result<Button, E>,
    ) -> Result<Updated<Button, E>, StoreError> {
        let _writing = self.gate.writing();
        swap(
            &self.runners.buttons,
            runner.as_bytes(),
            |bytes| {
                Ok(bytes
                    .map(decode::<Button>)
                    .transpose()?
                    .filter(|b| b.org_id == org && b.id == id))
            },
            change,
        )
    }

    /// Removes the runner's button (`id`: only that one) and its day
    /// counts; whether there was one.
    pub fn delete_button(
        &self,
        org: OrgId,
        runner: RunnerId,
        id: Option<TriggerId>,
    ) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let tree = &self.runners.buttons;
        let Some(old) = tree.get(runner.as_bytes()).map_err(engine)? else {
            return Ok(false);
        };
        let button: Button = decode(&old)?;
        if button.org_id != org || id.is_some_and(|id| button.id != id) {
            return Ok(false);
        }
        let removed = tree
            .compare_and_swap(runner.as_bytes(), Some(old), None::<&[u8]>)
            .map_err(engine)?
            .is_ok();
        for key in tree.scan_prefix(runner.as_bytes()).keys() {
            let key = key.map_err(engine)?;
            if key.len() == 20 {
                tree.remove(key).map_err(engine)?;
            }
        }
        Ok(removed)
    }

    /// Counts one more run of the runner's button on `day` unless it has
    /// started `limit` that day; whether it was counted.
    pub fn count_button_run(
        &self,
        runner: RunnerId,
        day: NaiveDate,
        limit: u32,
    ) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let key = day_key(runner, day);
        let mut counted = false;
        self.runners
            .buttons
            .fetch_and_update(key, |old| {
                let runs = old.map_or(0, keys::read_u64);
                counted = runs < u64::from(limit);
                Some(
                    (if counted { runs + 1 } else { runs })
                        .to_be_bytes()
                        .to_vec(),
                )
            })
            .map_err(engine)?;
        Ok(counted)
    }

    /// The runs the runner's button started on `day`.
    pub fn button_runs_on(&self, runner: RunnerId, day: NaiveDate) -> Result<u64, StoreError> {
        let value = self
            .runners
            .buttons
            .get(day_key(runner, day))
            .map_err(engine)?;
        Ok(value.as_deref().map_or(0, keys::read_u64))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use chrono::Utc;

    use super::*;
    use crate::runners::button::ButtonSettings;

    #[test]
    fn one_button_per_runner_its_days_counted_to_the_limit_and_gone_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let store =
            SledStore::open(dir.path(), crate::store::testing::test_secrets(dir.path())).unwrap();
        let now = Utc::now();
        let button = Button {
            id: TriggerId::new(),
            runner_id: RunnerId::new(),
            org_id: OrgId::new(),
            enabled: true,
            settings: ButtonSettings::new("Go"),
            created_at: now,
            updated_at: now,
        };
        let (org, runner) = (button.org_id, button.runner_id);
        assert!(store.put_button(&button).unwrap());
        assert!(!store.put_button(&button).unwrap(), "a second button");
        assert!(
            store
                .org_button(OrgId::new(), runner, None)
                .unwrap()
                .is_none()
        );
        let today = now.date_naive();
        assert!(store.count_button_run(runner, today, 2).unwrap());
        assert!(store.count_button_run(runner, today, 2).unwrap());
        assert!(!store.count_button_run(runner, today, 2).unwrap());
        assert_eq!(store.button_runs_on(runner, today).unwrap(), 2);
        assert!(
            !store
                .delete_button(org, runner, Some(TriggerId::new()))
                .unwrap()
        );
        assert!(store.delete_button(org, runner, Some(button.id)).unwrap());
        assert!(store.button(runner).unwrap().is_none());
        assert_eq!(store.button_runs_on(runner, today).unwrap(), 0);
    }
}
