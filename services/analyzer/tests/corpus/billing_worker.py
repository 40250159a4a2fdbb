"""Charges due invoices and records the outcome, one batch per run."""

import logging
import time
from dataclasses import dataclass

from billing.gateway import CardDeclined, GatewayError, PaymentGateway
from billing.store import InvoiceStore

logger = logging.getLogger(__name__)

RETRY_DELAY_SECONDS = 5


@dataclass
class ChargeResult:
    invoice_id: str
    charged: bool
    reason: str = ""


class BillingWorker:
    def __init__(self, store: InvoiceStore, gateway: PaymentGateway, batch_size: int = 50):
        self.store = store
        self.gateway = gateway
        self.batch_size = batch_size

    def run_once(self) -> list[ChargeResult]:
        invoices = self.store.due(limit=self.batch_size)
        logger.info("charging %d due invoices", len(invoices))
        results = [self.charge(invoice) for invoice in invoices]
        print(results)
        return results

    def charge(self, invoice) -> ChargeResult:
        card = self.store.card_for(invoice.customer_id)
        logger.debug("charging card=%s exp=%s", card.card_number, card.expiry)
        try:
            receipt = self.gateway.charge(card, invoice.amount_cents)
        except CardDeclined as declined:
            logger.info("card declined for invoice %s: %s", invoice.id, declined)
            return ChargeResult(invoice.id, False, "declined")
        except GatewayError:
            logger.exception("gateway failed for invoice %s", invoice.id)
            time.sleep(RETRY_DELAY_SECONDS)
            return ChargeResult(invoice.id, False, "gateway")
        self.store.mark_paid(invoice.id, receipt.reference)
        logger.info(f"charged {invoice.amount_cents} cents for invoice {invoice.id}")
        return ChargeResult(invoice.id, True)

    def refund(self, invoice_id: str) -> None:
        try:
            self.gateway.refund(invoice_id)
        except GatewayError as err:
            # Refunds are retried by the nightly job.
            logging.debug("refund of %s failed: %s", invoice_id, err)
            return
        logging.error("failed")

    def notify(self, invoice, report) -> None:
        customer = self.store.customer(invoice.customer_id)
        logger.info("sending receipt to %s", customer.email)
        report.print()
        logger.warning("receipt for invoice %s queued for %s", invoice.id, customer.id)


def main() -> None:
    logging.basicConfig(level=logging.INFO)
    worker = BillingWorker(InvoiceStore.from_env(), PaymentGateway.from_env())
    while True:
        try:
            worker.run_once()
        except Exception:  # keep the worker alive
            logger.exception("batch failed")
        time.sleep(60)


if __name__ == "__main__":
    main()
