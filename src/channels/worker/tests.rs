use std::cell::Cell;

use confer_actors::OrgId;

use super::*;
use crate::channels::vendors::ReplyTarget;

fn job(contact: ContactId, not_before: DateTime<Utc>) -> ChannelJob {
    ChannelJob {
        id: ChannelJobId::new(),
        org_id: OrgId::new(),
        channel_id: ChannelId::new(),
        work: JobWork::Message {
            contact_id: contact,
            text: "hi".into(),
            target: ReplyTarget::Telegram { chat_id: 1 },
        },
        reply: None,
        attempts: 0,
        not_before,
        created_at: not_before,
    }
}

#[test]
fn a_pass_starts_at_most_the_free_workers_and_reads_no_further() {
    let now = Utc::now();
    let later = now + chrono::Duration::seconds(30);
    let (waiting, running, first) = (ContactId::new(), ContactId::new(), ContactId::new());
    let mut jobs = vec![
        // Not due: its contact's next job waits behind it.
        job(waiting, later),
        job(waiting, now),
        // Its contact has a job running.
        job(running, now),
        job(first, now),
        job(first, now),
    ];
    jobs.extend((0..10_000).map(|_| job(ContactId::new(), now)));
    let read = Cell::new(0);
    let iter = jobs.iter().cloned().map(|j| {
        read.set(read.get() + 1);
        Ok(j)
    });
    let busy = HashSet::from([Lane::Contact(running)]);
    let (ready, next) = pick(iter, &busy, 2, now).unwrap();
    let contacts: Vec<_> = ready.iter().filter_map(ChannelJob::contact).collect();
    assert_eq!(contacts[0], first);
    assert_ne!(contacts[1], first, "a contact's jobs run one at a time");
    assert_eq!(ready.len(), 2);
    assert_eq!(read.get(), 6, "the pass stops once two are found");
    assert_eq!(next, Some(later));

    // No free worker: nothing is read.
    read.set(0);
    let iter = jobs.iter().cloned().map(|j| {
        read.set(read.get() + 1);
        Ok(j)
    });
    let (ready, _) = pick(iter, &busy, 0, now).unwrap();
    assert!(ready.is_empty());
    assert_eq!(read.get(), 0);
}
