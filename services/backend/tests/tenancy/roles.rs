//! Roles are ranked, never compared for equality; an unknown role ranks -1 and is refused.

use backend::tenancy::roles::UNKNOWN_RANK;
use backend::tenancy::{Role, meets, rank};

#[test]
fn ranks_in_order_and_unknown_is_minus_one() {
    let table = [
        ("VIEWER", 0),
        ("MEMBER", 1),
        ("ADMIN", 2),
        ("OWNER", 3),
        ("owner", 3),
        ("Admin", 2),
        ("SUPERUSER", -1),
        ("", -1),
        (" OWNER", -1),
    ];
    for (role, expected) in table {
        assert_eq!(rank(role), expected, "rank({role:?})");
    }
    assert_eq!(UNKNOWN_RANK, -1);
}

#[test]
fn a_floor_is_met_by_every_role_at_or_above_it() {
    for floor in Role::ALL {
        for role in Role::ALL {
            let expected = role.rank() >= floor.rank();
            assert_eq!(
                meets(role.as_str(), floor),
                expected,
                "{role} against {floor}"
            );
        }
    }
    assert!(
        meets("OWNER", Role::Member),
        "a higher role passes a lower floor"
    );
}

#[test]
fn an_unknown_role_meets_no_floor() {
    for floor in Role::ALL {
        for role in ["SUPERUSER", "ROOT", "", "-1", "OWNER!"] {
            assert!(!meets(role, floor), "{role:?} must not pass {floor}");
        }
    }
}

#[test]
fn parses_any_case_and_serialises_upper_case() {
    assert_eq!(Role::parse("viewer"), Some(Role::Viewer));
    assert_eq!(Role::parse("MeMbEr"), Some(Role::Member));
    assert_eq!(Role::parse("superuser"), None);
    let json = serde_json::to_string(&Role::ALL).expect("roles serialise");
    assert_eq!(json, r#"["VIEWER","MEMBER","ADMIN","OWNER"]"#);
    let admin: Role = serde_json::from_str(r#""ADMIN""#).expect("a role decodes");
    assert_eq!(admin, Role::Admin);
    assert_eq!(Role::Owner.to_string(), "OWNER");
}
