//! Observability (`observability.md`): the metrics Prometheus scrapes
//! ([`metrics`]), the per-day analytics aggregates and their sketches
//! ([`aggregate`], [`sketch`]), the price table ([`prices`]) and the OTLP
//! export of the traces ([`otlp`]). The
//! traces themselves are recorded by the turn (`confer_actors::trace`) and
//! stored by `store::traces`.

pub mod aggregate;
pub mod analytics;
pub mod metrics;
pub mod otlp;
pub mod prices;
pub mod sketch;
