"""Tests of BillingWorker against fakes."""

from billing.testing import FakeGateway, FakeStore
from billing.worker import BillingWorker


def test_charges_due_invoices():
    store = FakeStore(due=["inv-1", "inv-2"])
    worker = BillingWorker(store, FakeGateway())
    results = worker.run_once()
    print(results)
    assert [result.charged for result in results] == [True, True]


def test_declined_card_is_not_retried():
    gateway = FakeGateway(decline=True)
    worker = BillingWorker(FakeStore(due=["inv-3"]), gateway)
    assert not worker.run_once()[0].charged
    assert gateway.calls == 1
