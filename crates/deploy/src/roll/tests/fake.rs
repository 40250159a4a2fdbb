//! A fake engine: the containers of one service, every command it was given, and what new
//! replicas look like.

use crate::engine::{Engine, EngineError};
use crate::roll::STRATEGY_LABEL;
use serde_json::json;
use std::cell::{Cell, RefCell};

/// One fake container.
#[derive(Clone)]
pub struct Fake {
    pub id: String,
    pub running: bool,
    pub health: Option<&'static str>,
    pub diff: &'static str,
}

/// A fake engine: containers of one service, the commands it was given, and what new
/// replicas will look like.
pub struct FakeEngine {
    pub containers: RefCell<Vec<Fake>>,
    pub log: RefCell<Vec<String>>,
    pub new_health: Option<&'static str>,
    /// What `docker diff` shows for a container once it is stopped.
    pub stopped_diff: &'static str,
    pub strategy: Option<&'static str>,
    pub created: Cell<usize>,
}

impl FakeEngine {
    pub fn new(old: usize) -> Self {
        let containers = (1..=old)
            .map(|n| Fake {
                id: format!("old-{n}"),
                running: true,
                health: Some("healthy"),
                diff: "",
            })
            .collect();
        Self {
            containers: RefCell::new(containers),
            log: RefCell::new(Vec::new()),
            new_health: Some("healthy"),
            stopped_diff: "",
            strategy: None,
            created: Cell::new(0),
        }
    }

    fn find(&self, id: &str) -> Result<Fake, EngineError> {
        self.containers
            .borrow()
            .iter()
            .find(|c| c.id == id)
            .cloned()
            .ok_or_else(|| EngineError {
                command: format!("docker container inspect {id}"),
                message: format!("Error: No such container: {id}"),
            })
    }

    pub fn ids(&self) -> Vec<String> {
        self.containers
            .borrow()
            .iter()
            .map(|c| c.id.clone())
            .collect()
    }

    pub fn log(&self) -> Vec<String> {
        self.log.borrow().clone()
    }
}

impl Engine for FakeEngine {
    fn inspect(&self, id: &str, size: bool) -> Result<String, EngineError> {
        let fake = self.find(id)?;
        let number = fake.id.rsplit('-').next().unwrap_or("0").to_owned();
        let mut labels = json!({ "com.docker.compose.container-number": number });
        if let Some(strategy) = self.strategy {
            labels[STRATEGY_LABEL] = json!(strategy);
        }
        let mut state = json!({ "Running": fake.running });
        if let Some(status) = fake.health {
            state["Health"] = json!({ "Status": status });
        }
        let mut container = json!({
            "Id": fake.id, "Name": format!("/{}", fake.id), "State": state,
            "Config": { "WorkingDir": "/", "Env": ["PATH=/bin"], "Labels": labels },
            "Mounts": [],
        });
        if size {
            container["SizeRw"] = json!(fake.diff.len());
        }
        Ok(json!([container]).to_string())
    }

    fn diff(&self, id: &str) -> Result<String, EngineError> {
        let fake = self.find(id)?;
        Ok(if fake.running {
            fake.diff
        } else {
            self.stopped_diff
        }
        .to_owned())
    }

    fn containers(&self, _project: &str, _service: &str) -> Result<Vec<String>, EngineError> {
        Ok(self.ids())
    }

    fn scale(&self, _service: &str, replicas: usize) -> Result<(), EngineError> {
        self.log.borrow_mut().push(format!("scale {replicas}"));
        let mut containers = self.containers.borrow_mut();
        while containers.len() < replicas {
            self.created.set(self.created.get() + 1);
            containers.push(Fake {
                id: format!("new-{}", self.created.get()),
                running: true,
                health: self.new_health,
                diff: "",
            });
        }
        Ok(())
    }

    fn stop(&self, id: &str) -> Result<(), EngineError> {
        self.log.borrow_mut().push(format!("stop {id}"));
        let mut containers = self.containers.borrow_mut();
        containers
            .iter_mut()
            .filter(|c| c.id == id)
            .for_each(|c| c.running = false);
        Ok(())
    }

    fn remove(&self, id: &str) -> Result<(), EngineError> {
        self.log.borrow_mut().push(format!("rm {id}"));
        self.containers.borrow_mut().retain(|c| c.id != id);
        Ok(())
    }
}
