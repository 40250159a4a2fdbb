//! Loads the worker's configuration from a TOML file and the environment.

use std::fs;
use std::path::{Path, PathBuf};

use log::{debug, error, info, trace, warn};
use serde::Deserialize;

#[derive(Debug, Default, Deserialize)]
pub struct Settings {
    pub database_url: String,
    pub api_key: String,
    pub refresh_token: Option<String>,
    pub password_min_length: usize,
    pub workers: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {0}: {1}")]
    Read(PathBuf, std::io::Error),
    #[error("invalid config: {0}")]
    Parse(#[from] toml::de::Error),
}

pub fn load(path: &Path) -> Result<Settings, ConfigError> {
    trace!("reading config from {}", path.display());
    let text = fs::read_to_string(path).map_err(|e| {
        trace!("read failed: {e}");
        ConfigError::Read(path.to_path_buf(), e)
    })?;
    let mut settings: Settings = toml::from_str(&text)?;
    if let Ok(key) = std::env::var("WORKER_API_KEY") {
        settings.api_key = key;
        debug!("api key overridden from the environment: {}", settings.api_key);
    }
    dbg!(&settings.workers);
    info!(
        "loaded config: {} workers, minimum password length {}",
        settings.workers, settings.password_min_length
    );
    Ok(settings)
}

pub fn load_or_default(path: &Path) -> Settings {
    match load(path) {
        Ok(settings) => settings,
        Err(ConfigError::Read(_, e)) if e.kind() == std::io::ErrorKind::NotFound => {
            warn!("no config at {}, using defaults", path.display());
            Settings::default()
        }
        Err(error) => {
            error!("Error");
            eprintln!("config error: {error}");
            Settings::default()
        }
    }
}

pub fn describe(settings: &Settings) -> String {
    let token_state = if settings.refresh_token.is_some() { "set" } else { "unset" };
    info!("refresh token {token_state}");
    info!("TODO: report the database host");
    format!("{} workers", settings.workers)
}
