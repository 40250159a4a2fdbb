import { PaymentService } from "./paymentService";
import { FakeGateway, silentLogger, fakeRequest } from "./testing";

describe("PaymentService", () => {
  it("charges through the gateway", async () => {
    const gateway = new FakeGateway();
    const service = new PaymentService(gateway, silentLogger);
    const payment = await service.charge(
      { orderId: "o-1", amountCents: 1250, cardNumber: "4242424242424242", cvv: "123" },
      fakeRequest(),
    );
    console.log(payment);
    expect(payment?.orderId).toBe("o-1");
  });
});
