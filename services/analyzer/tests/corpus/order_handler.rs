//! HTTP handlers for the orders resource.

use std::sync::Arc;

use axum::extract::{Json, Path, State};
use axum::http::StatusCode;
use tracing::{debug, error, info, warn};

use crate::auth::Session;
use crate::orders::{NewOrder, Order, OrderError, OrderStore};
use crate::payments::PaymentClient;

pub struct OrdersState {
    pub store: Arc<dyn OrderStore>,
    pub payments: PaymentClient,
    /// Read from config; checked at login, never logged.
    pub password_policy: PasswordPolicy,
}

pub async fn create_order(
    State(state): State<Arc<OrdersState>>,
    session: Session,
    Json(new_order): Json<NewOrder>,
) -> Result<Json<Order>, StatusCode> {
    info!(user_id = %session.user_id, items = new_order.items.len(), "creating order");
    let order = match state.store.insert(&session.user_id, &new_order).await {
        Ok(order) => order,
        Err(OrderError::Duplicate(id)) => {
            warn!(order_id = %id, "duplicate order submitted");
            return Err(StatusCode::CONFLICT);
        }
        Err(e) => {
            debug!("insert failed: {e}");
            return Err(StatusCode::INTERNAL_SERVER_ERROR);
        }
    };
    if let Err(e) = state.payments.authorize(&order, &session.card_token).await {
        error!(order_id = %order.id, error = %e, "payment authorization failed");
        return Err(StatusCode::PAYMENT_REQUIRED);
    }
    info!("Order {} created for {}", order.id, session.email);
    Ok(Json(order))
}

pub async fn get_order(
    State(state): State<Arc<OrdersState>>,
    Path(order_id): Path<String>,
) -> Result<Json<Order>, StatusCode> {
    println!("get_order {order_id}");
    match state.store.find(&order_id).await {
        Ok(Some(order)) => Ok(Json(order)),
        Ok(None) => Err(StatusCode::NOT_FOUND),
        Err(err) => {
            info!("lookup of {order_id} failed: {err}");
            Err(StatusCode::INTERNAL_SERVER_ERROR)
        }
    }
}

pub async fn cancel_order(
    State(state): State<Arc<OrdersState>>,
    Path(order_id): Path<String>,
) -> StatusCode {
    // println!("cancelling {order_id}");
    let result = state.store.cancel(&order_id).await;
    if let Err(e) = result {
        error!(%order_id, "cancel failed: {e}");
        return StatusCode::INTERNAL_SERVER_ERROR;
    }
    info!("done");
    StatusCode::NO_CONTENT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn creates_an_order() {
        let state = test_state();
        println!("state ready: {}", state.store.len());
        let response = create_order(State(state), Session::fake(), Json(NewOrder::fake())).await;
        assert!(response.is_ok());
    }
}
