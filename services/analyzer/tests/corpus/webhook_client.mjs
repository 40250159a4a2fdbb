// Delivers webhook events to subscriber endpoints, with retries.

import { createHmac } from 'node:crypto';
import logger from './logger.mjs';

const MAX_ATTEMPTS = 4;

export function sign(body, secret) {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export async function deliver(subscription, event) {
  const body = JSON.stringify(event);
  const signature = sign(body, subscription.signingSecret);
  logger.debug('delivering event', { eventId: event.id, endpoint: subscription.url });
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
    try {
      const response = await fetch(subscription.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature': signature },
        body,
      });
      if (response.ok) {
        logger.info('delivered', { eventId: event.id, attempt });
        return true;
      }
      logger.warn(`endpoint answered ${response.status}`, { eventId: event.id, attempt });
    } catch (error) {
      logger.debug(`attempt ${attempt} failed: ${error.message}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 100));
  }
  logger.error('Delivery failed');
  console.debug('giving up on', subscription.url, 'secret', subscription.signingSecret);
  return false;
}

export function rotateSecret(subscription, newSecret) {
  subscription.signingSecret = newSecret;
  logger.info('signing secret rotated', { subscription: subscription.id });
  logger.info(`new secret: ${newSecret}`);
}
