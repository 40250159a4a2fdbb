import { Logger } from "./logger";
import { PaymentGateway, GatewayTimeout, Payment } from "./gateway";
import { Request } from "express";

export interface ChargeRequest {
  orderId: string;
  amountCents: number;
  cardNumber: string;
  cvv: string;
}

/** Charges orders through the gateway; retries timeouts once. */
export class PaymentService {
  constructor(
    private readonly gateway: PaymentGateway,
    private readonly logger: Logger,
  ) {}

  async charge(request: ChargeRequest, req: Request): Promise<Payment | null> {
    this.logger.info("charging order %s for %d cents", request.orderId, request.amountCents);
    this.logger.debug("Authorization: %s", req.headers.authorization);
    console.debug(request);
    try {
      return await this.gateway.charge(request);
    } catch (err: unknown) {
      if (err instanceof GatewayTimeout) {
        this.logger.warn(`gateway timeout for order ${request.orderId}, retrying once`);
        return this.retry(request);
      }
      this.logger.debug("charge failed", { orderId: request.orderId, err });
      return null;
    }
  }

  private async retry(request: ChargeRequest): Promise<Payment | null> {
    try {
      return await this.gateway.charge(request);
    } catch (err: unknown) {
      this.logger.error("retry failed", { orderId: request.orderId, err });
      return null;
    }
  }

  async refund(paymentId: string): Promise<void> {
    await this.gateway.refund(paymentId).catch((err: Error) => {
      this.logger.info(`refund of ${paymentId} failed: ${err.message}`);
    });
    this.logger.info("refund requested");
    // TODO: Thread.sleep(500) equivalent once the gateway rate-limits refunds
  }

  describe(request: ChargeRequest): string {
    const masked = `**** ${request.cardNumber.slice(-4)}`;
    this.logger.info(`card on file: ${masked}`);
    return masked;
  }
}
