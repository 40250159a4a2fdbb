package com.acme.orders.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.acme.orders.Order;

/** Reads and writes orders in the {@code orders} table. */
public class OrderRepository {
    private static final Logger LOGGER = LoggerFactory.getLogger(OrderRepository.class);
    private static final int MAX_ATTEMPTS = 3;

    private final DataSource dataSource;

    public OrderRepository(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    public Optional<Order> findById(String orderId) {
        String sql = "SELECT id, customer_email, total_cents FROM orders WHERE id = ?";
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, orderId);
            try (ResultSet rows = statement.executeQuery()) {
                if (!rows.next()) {
                    LOGGER.debug("No order {}", orderId);
                    return Optional.empty();
                }
                Order order = new Order(rows.getString("id"), rows.getString("customer_email"),
                        rows.getLong("total_cents"));
                LOGGER.debug("Loaded order {} for {}", order.getId(), order.getCustomerEmail());
                return Optional.of(order);
            }
        } catch (SQLException e) {
            LOGGER.debug("Lookup failed for order {}", orderId, e);
            return Optional.empty();
        }
    }

    public void save(Order order) {
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            try {
                insert(order);
                LOGGER.info("Saved order {} on attempt {}", order.getId(), attempt);
                return;
            } catch (SQLException e) {
                LOGGER.warn("Saving order {} failed on attempt {}", order.getId(), attempt, e);
                try {
                    Thread.sleep(200L * attempt);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    LOGGER.info("Interrupted");
                    return;
                }
            }
        }
        LOGGER.error("Error");
    }

    public int purgeCancelled() {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(
                     "DELETE FROM orders WHERE status = 'CANCELLED'")) {
            int purged = statement.executeUpdate();
            LOGGER.info("Purged {} cancelled orders", purged);
            return purged;
        } catch (SQLException e) {
            e.printStackTrace();
            LOGGER.error("Purging cancelled orders failed", e);
            return 0;
        }
    }

    private void insert(Order order) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(
                     "INSERT INTO orders (id, customer_email, total_cents) VALUES (?, ?, ?)")) {
            statement.setString(1, order.getId());
            statement.setString(2, order.getCustomerEmail());
            statement.setLong(3, order.getTotalCents());
            statement.executeUpdate();
        }
    }
}
