//! [`LlmClient`]: the handle a service keeps in its state and calls; it hides which provider
//! answers, and the reply says which one did.

use std::fmt;
use std::sync::Arc;

use limiter::SharedClock;

use crate::openai::OpenAiCompatible;
use crate::{ChatReply, ChatRequest, ChatStream, LlmConfig, LlmError, Provider, local};

/// A chat client. Cheap to clone: clones share one HTTP connection pool and one pacer.
#[derive(Clone)]
pub struct LlmClient {
    backend: Arc<Backend>,
}

enum Backend {
    Local,
    OpenAiCompatible(OpenAiCompatible),
}

impl LlmClient {
    /// The client `config` describes: the local provider when it has no base URL, else the
    /// OpenAI-compatible API there, paced on `clock`.
    ///
    /// Fails with [`LlmError::Setup`] when the base URL or key is unusable (a config read by
    /// [`LlmConfig::from_env`] never is) or the HTTP client cannot be built.
    pub fn new(config: LlmConfig, clock: SharedClock) -> Result<Self, LlmError> {
        let backend = match config.base_url.clone() {
            None => Backend::Local,
            Some(base_url) => {
                Backend::OpenAiCompatible(OpenAiCompatible::new(&base_url, config, clock)?)
            }
        };
        Ok(Self {
            backend: Arc::new(backend),
        })
    }

    /// The deterministic local provider: no network, same request → same reply.
    pub fn local() -> Self {
        Self {
            backend: Arc::new(Backend::Local),
        }
    }

    /// Which kind of provider answers this client's calls.
    pub fn provider(&self) -> Provider {
        match *self.backend {
            Backend::Local => Provider::Local,
            Backend::OpenAiCompatible(_) => Provider::OpenAiCompatible,
        }
    }

    /// Sends `request` and returns the first choice's text.
    ///
    /// The local provider always answers. A remote one waits for its pacer slot first, and
    /// the whole call (wait, attempts, backoff) ends within the configured timeout.
    pub async fn chat(&self, request: &ChatRequest) -> Result<ChatReply, LlmError> {
        match &*self.backend {
            Backend::Local => Ok(local::answer(request)),
            Backend::OpenAiCompatible(provider) => provider.chat(request).await,
        }
    }

    /// Sends `request` asking for the answer in pieces as they are written.
    ///
    /// Resolves once the provider has started answering (pacer slot, attempts and backoff
    /// within the configured timeout, as for [`Self::chat`]); every later piece is awaited for
    /// at most that timeout. The local provider's pieces join to exactly its [`Self::chat`]
    /// reply.
    pub async fn chat_stream(&self, request: &ChatRequest) -> Result<ChatStream, LlmError> {
        match &*self.backend {
            Backend::Local => Ok(ChatStream::from(local::answer(request))),
            Backend::OpenAiCompatible(provider) => provider.chat_stream(request).await,
        }
    }
}

impl fmt::Debug for LlmClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.backend {
            Backend::Local => f.write_str("LlmClient(local)"),
            Backend::OpenAiCompatible(provider) => {
                f.debug_tuple("LlmClient").field(provider).finish()
            }
        }
    }
}
