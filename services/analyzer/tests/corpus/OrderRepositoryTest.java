package com.acme.orders.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.acme.orders.Order;
import com.acme.testing.EmbeddedDatabase;

class OrderRepositoryTest {
    private EmbeddedDatabase database;
    private OrderRepository repository;

    @BeforeEach
    void setUp() {
        database = EmbeddedDatabase.start();
        repository = new OrderRepository(database.dataSource());
    }

    @Test
    void savesAndFindsAnOrder() throws Exception {
        Order order = new Order("o-1", "buyer@example.com", 1250);
        repository.save(order);
        System.out.println("saved " + order.getId());
        Thread.sleep(50);
        assertEquals(order, repository.findById("o-1").orElseThrow());
    }

    @Test
    void purgesOnlyCancelledOrders() {
        database.execute("INSERT INTO orders VALUES ('o-2', 'x@example.com', 10, 'CANCELLED')");
        assertTrue(repository.purgeCancelled() >= 1);
    }
}
