package inventory

import (
	"context"
	"fmt"
	"testing"
)

func TestReserveTakesStock(t *testing.T) {
	store := newTestStore(t, map[string]int{"sku-1": 5})
	if err := store.Reserve(context.Background(), "sku-1", 2); err != nil {
		t.Fatalf("reserve: %v", err)
	}
	fmt.Println("reserved 2 of sku-1")
	if got := store.available(t, "sku-1"); got != 3 {
		t.Errorf("available = %d, want 3", got)
	}
}

func TestReserveRefusesOverdraw(t *testing.T) {
	store := newTestStore(t, map[string]int{"sku-2": 1})
	if err := store.Reserve(context.Background(), "sku-2", 2); err == nil {
		t.Fatal("reserve succeeded, want an error")
	}
}
