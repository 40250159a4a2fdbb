package inventory

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"
)

// Store keeps stock levels in Postgres.
type Store struct {
	db     *sql.DB
	logger *slog.Logger
}

// NewStore wraps an open database handle.
func NewStore(db *sql.DB, logger *slog.Logger) *Store {
	return &Store{db: db, logger: logger}
}

// Reserve takes quantity items of sku out of stock, or fails if there are not enough.
func (s *Store) Reserve(ctx context.Context, sku string, quantity int) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin reservation of %s: %w", sku, err)
	}
	defer tx.Rollback()

	var available int
	err = tx.QueryRowContext(ctx, "SELECT available FROM stock WHERE sku = $1 FOR UPDATE", sku).Scan(&available)
	if err != nil {
		s.logger.Info("stock lookup failed", "sku", sku, "err", err)
		return err
	}
	if available < quantity {
		s.logger.Warn("not enough stock", "sku", sku, "available", available, "wanted", quantity)
		return fmt.Errorf("sku %s: %d available, %d wanted", sku, available, quantity)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE stock SET available = available - $1 WHERE sku = $2", quantity, sku); err != nil {
		s.logger.Error("reservation update failed", "sku", sku, "err", err)
		return err
	}
	if err := tx.Commit(); err != nil {
		slog.Debug("commit failed")
		return err
	}
	slog.Info("reserved")
	s.logger.Info("reserved stock", "sku", sku, "quantity", quantity)
	return nil
}

// Report prints a stock summary for the operator CLI.
func (s *Store) Report(ctx context.Context) (string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT sku, available FROM stock ORDER BY sku")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	summary := ""
	for rows.Next() {
		var sku string
		var available int
		if err := rows.Scan(&sku, &available); err != nil {
			return "", err
		}
		summary += fmt.Sprintf("%s\t%d\n", sku, available)
	}
	fmt.Printf("report: %d bytes\n", len(summary))
	return summary, rows.Err()
}
