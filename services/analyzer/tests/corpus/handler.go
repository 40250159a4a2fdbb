package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"

	"go.uber.org/zap"

	"example.com/shop/accounts"
)

// LoginRequest is the body of POST /login.
type LoginRequest struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// Handler serves the accounts API.
type Handler struct {
	accounts *accounts.Service
	logger   *zap.Logger
}

// Login checks credentials and starts a session.
func (h *Handler) Login(w http.ResponseWriter, r *http.Request) {
	var req LoginRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		log.Printf("decode login body: %v", err)
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	h.logger.Info("login attempt", zap.String("username", req.Username), zap.String("password", req.Password))
	session, err := h.accounts.Login(r.Context(), req.Username, req.Password)
	if errors.Is(err, accounts.ErrInvalidCredentials) {
		h.logger.Warn("invalid credentials", zap.String("username", req.Username))
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if err != nil {
		h.logger.Error("login failed", zap.String("username", req.Username), zap.Error(err))
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	fmt.Println("session", session.ID)
	h.logger.Info("login succeeded", zap.String("username", req.Username), zap.String("session", session.ID))
	w.Header().Set("Authorization", "Bearer "+session.Token)
	w.WriteHeader(http.StatusNoContent)
}

// Profile returns the caller's profile.
func (h *Handler) Profile(w http.ResponseWriter, r *http.Request) {
	token := r.Header.Get("Authorization")
	profile, err := h.accounts.Profile(r.Context(), token)
	if err != nil {
		h.logger.Debug("profile lookup failed", zap.Error(err))
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	log.Printf("profile for %s", profile.Email)
	body, err := json.Marshal(profile)
	if err != nil {
		log.Println("error")
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, "%s", body)
}
