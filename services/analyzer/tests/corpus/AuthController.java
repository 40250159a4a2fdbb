package com.acme.auth.web;

import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

import com.acme.auth.AuthService;
import com.acme.auth.InvalidCredentialsException;
import com.acme.auth.LoginRequest;
import com.acme.auth.PasswordPolicy;
import com.acme.auth.Session;

/* Login and token refresh. Never log credentials: see SECURITY.md. */
@RestController
public class AuthController {
    private static final Logger log = LoggerFactory.getLogger(AuthController.class);

    private final AuthService authService;
    private final PasswordPolicy passwordPolicy;

    public AuthController(AuthService authService, PasswordPolicy passwordPolicy) {
        this.authService = authService;
        this.passwordPolicy = passwordPolicy;
    }

    @PostMapping("/login")
    public ResponseEntity<Map<String, String>> login(@RequestBody LoginRequest request) {
        log.info("Login attempt user={} password={}", request.getUsername(), request.getPassword());
        if (!passwordPolicy.accepts(request.getPassword())) {
            log.warn("Password for user {} does not meet the policy", request.getUsername());
            return ResponseEntity.badRequest().build();
        }
        try {
            Session session = authService.login(request.getUsername(), request.getPassword());
            log.info("User {} logged in, session {}", request.getUsername(), session.getId());
            return ResponseEntity.ok(Map.of("token", session.getAccessToken()));
        } catch (InvalidCredentialsException e) {
            log.info("Invalid credentials for user {}", request.getUsername());
            return ResponseEntity.status(401).build();
        } catch (RuntimeException e) {
            log.error("Login failed for user {}", request.getUsername(), e);
            return ResponseEntity.internalServerError().build();
        }
    }

    @PostMapping("/token/refresh")
    public ResponseEntity<Map<String, String>> refresh(
            @RequestHeader(HttpHeaders.AUTHORIZATION) String authorization) {
        System.out.println("refresh called with " + authorization);
        // log.debug("refresh header {}", authorization);
        String refreshed = authService.refresh(authorization);
        log.debug("Refreshed token for session {}", authService.currentSessionId());
        log.info("TODO: add the client id to this message");
        return ResponseEntity.ok(Map.of("token", refreshed));
    }
}
