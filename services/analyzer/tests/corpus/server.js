'use strict';

const express = require('express');
const { createLogger } = require('./logging');
const { Users, NotFoundError } = require('./users');

const logger = createLogger('api');
const app = express();
app.use(express.json());

// Request logging: method, path and duration only; bodies may hold credentials.
app.use((req, res, next) => {
  const started = Date.now();
  res.on('finish', () => {
    logger.info('request', { method: req.method, path: req.path, ms: Date.now() - started });
  });
  next();
});

app.post('/signup', async (req, res) => {
  const { email, password } = req.body;
  console.log('signup payload', req.body);
  try {
    const user = await Users.create(email, password);
    logger.info(`user ${user.email} signed up`);
    res.status(201).json({ id: user.id });
  } catch (err) {
    logger.info('signup failed', err);
    res.status(400).json({ error: 'signup_failed' });
  }
});

app.get('/users/:id', async (req, res) => {
  try {
    const user = await Users.find(req.params.id);
    res.json(user.publicView());
  } catch (err) {
    if (err instanceof NotFoundError) {
      res.status(404).end();
      return;
    }
    logger.error('user lookup failed', { id: req.params.id, err });
    res.status(500).end();
  }
});

app.post('/users/:id/avatar', (req, res) => {
  Users.storeAvatar(req.params.id, req.body)
    .then(() => res.status(204).end())
    .catch((err) => {
      logger.warn(`avatar upload failed for ${req.params.id}`, err);
      res.status(500).end();
    });
});

app.get('/healthz', (req, res) => {
  console.log('here');
  res.send('ok');
});

function shutdown() {
  console.error('error');
  process.exit(1);
}

process.on('SIGTERM', shutdown);

const port = Number(process.env.PORT || 3000);
app.listen(port, () => logger.info(`listening on ${port}`));
