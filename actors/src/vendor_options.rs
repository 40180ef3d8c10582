//! A send's vendor options (`vendor-options.md`), as the HTTP layer
//! validated them: extended thinking, fallback models and prompt-cache
//! settings. Each part takes effect only for the vendor it names; the
//! defaults (no thinking, no fallback, caching on) are `Default`.

/// The options of one send.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VendorOptions {
    /// `anthropicOverrides`: applies to vendor A models.
    pub anthropic: AnthropicOptions,
    /// `openaiOverrides`: applies to vendor B (OpenAI-compatible) models.
    pub openai: OpenAiOptions,
    /// `streamThinking`: relay thinking text as `thinking` events.
    pub stream_thinking: bool,
    /// A cap on each call's output tokens (a public chat's
    /// `maxOutputTokens`); `None`: the provider's own limit.
    pub max_output_tokens: Option<u32>,
}

/// Vendor A options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnthropicOptions {
    /// Extended thinking's token budget, when thinking is enabled.
    pub thinking_budget: Option<u32>,
    /// Models tried in order when a vendor A model fails before its first
    /// token (any provider).
    pub fallback_models: Vec<String>,
    pub cache: AnthropicCache,
}

/// Vendor A prompt caching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnthropicCache {
    /// No breakpoint at all.
    pub disabled: bool,
    /// Breakpoints live one hour instead of five minutes.
    pub one_hour: bool,
    /// A breakpoint on the last tool definition.
    pub tools: bool,
}

impl Default for AnthropicCache {
    fn default() -> Self {
        Self {
            disabled: false,
            one_hour: false,
            tools: true,
        }
    }
}

/// Vendor B options: the prompt-cache key and end-user identifier Confer
/// derives, replaced or turned off.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpenAiOptions {
    /// Send neither default.
    pub disabled: bool,
    /// `prompt_cache_key` instead of the one derived from the thread.
    pub prompt_cache_key: Option<String>,
    /// `safety_identifier` instead of the one derived from the end user.
    pub safety_identifier: Option<String>,
}

/// The default extended-thinking budget, in tokens.
pub const DEFAULT_THINKING_BUDGET: u32 = 10_000;
/// The smallest and largest thinking budgets a send may ask for.
pub const THINKING_BUDGET_RANGE: std::ops::RangeInclusive<u32> = 1_024..=64_000;
/// The most fallback models a send may name.
pub const MAX_FALLBACK_MODELS: usize = 4;
