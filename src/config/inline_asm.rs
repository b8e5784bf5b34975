//! What a kernel's inline PTX (`asm volatile("ld.global.nc.f32 %0, [%1];"
//! : "=f"(v) : "l"(p))`) does with the pointer it is given as one operand:
//! the instructions of the template that use the operand as a memory
//! address (`[%1]`, `[%1+16]`) read it (`ld…`), write it (`st…`), do both
//! (`atom…`, `red…`) or copy between two addresses (`cp.async…`: the first
//! written, the second read). An operand the template uses any other way
//! (`mov.b64 %rd1, %1;`, `cvta…`), or a template with named operands
//! (`%[ptr]`), takes the address where this reading cannot follow.

/// How the template `template` uses its operand number `operand` as an
/// address: `(read, written, escapes)`.
pub(crate) fn operand_use(template: &str, operand: usize) -> (bool, bool, bool) {
    let reference = format!("%{operand}");
    // Named operands (`%[ptr]`) are not numbered: this reading cannot
    // tell which is which.
    if template.contains("%[") {
        return (false, false, true);
    }
    let (mut read, mut written, mut escapes) = (false, false, false);
    for instruction in template.split(';') {
        // A scope's braces (`{ .reg .pred p; … }`) and a guard (`@p ld…`,
        // `@!p st…`) come before the opcode.
        let instruction =
            instruction.trim_start_matches(|c: char| c == '{' || c == '}' || c.is_whitespace());
        let instruction = match instruction.strip_prefix('@') {
            Some(guarded) => guarded
                .split_once(char::is_whitespace)
                .map_or("", |(_, i)| i),
            None => instruction,
        }
        .trim();
        let (opcode, operands) = instruction
            .split_once(char::is_whitespace)
            .unwrap_or((instruction, ""));
        for (position, text) in operands_of(operands).into_iter().enumerate() {
            if !names_operand(text, &reference) {
                continue;
            }
            match (text.starts_with('['), access(opcode, position)) {
                (true, Some((r, w))) => {
                    read |= r;
                    written |= w;
                }
                _ => escapes = true,
            }
        }
    }
    (read, written, escapes)
}

/// An instruction's operands, split at the commas outside a vector's
/// braces (`{%0, %1}, [%2]` is two).
fn operands_of(operands: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (at, c) in operands.char_indices() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(operands[start..at].trim());
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(operands[start..].trim());
    parts
}

/// Whether an instruction's operand text names `%N` (not `%N0`, `%%N`).
fn names_operand(text: &str, reference: &str) -> bool {
    text.match_indices(reference).any(|(at, _)| {
        let next = text[at + reference.len()..].chars().next();
        let escaped = text[..at].ends_with('%');
        !escaped && !next.is_some_and(|c| c.is_ascii_digit())
    })
}

/// What an instruction with opcode `opcode` does at the address of its
/// operand at `position`: `(read, written)`; `None` for one that is no
/// memory access this reading knows.
fn access(opcode: &str, position: usize) -> Option<(bool, bool)> {
    let family = opcode.split('.').next().unwrap_or(opcode);
    match family {
        "ld" | "ldu" | "ldmatrix" => Some((true, false)),
        "st" | "stmatrix" => Some((false, true)),
        "atom" | "red" => Some((true, true)),
        "prefetch" | "prefetchu" | "discard" | "applypriority" => Some((false, false)),
        "cp" if opcode.starts_with("cp.reduce") => Some((true, position == 0)),
        "cp" => Some((position > 0, position == 0)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_stores_atomics_and_copies_by_the_operand_they_address() {
        let cases = [
            ("ld.global.nc.f32 %0, [%1];", 1, (true, false, false)),
            (
                "{.reg .pred p;\n setp.ne.b32 p, %2, 0;\n @p ld.global.nc.v4.f32 {%0, %1}, [%3 + 16];}\n",
                3,
                (true, false, false),
            ),
            (
                "st.global.cs.v4.b32 [%0], {%1, %2, %3, %4};",
                0,
                (false, true, false),
            ),
            ("red.global.add.f32 [%0], %1;", 0, (true, true, false)),
            (
                "cp.async.cg.shared.global.L2::128B [%0], [%1], 16, 16;",
                1,
                (true, false, false),
            ),
            (
                "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;",
                0,
                (false, true, false),
            ),
            (
                "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;",
                0,
                (true, true, false),
            ),
            ("prefetch.global.L2 [%0];", 0, (false, false, false)),
            // Taken as a value: where it goes cannot be followed.
            ("mov.b64 %0, %1;", 1, (false, false, true)),
            (
                "cvta.to.global.u64 %0, %1; ld.global.f32 %2, [%0];",
                1,
                (false, false, true),
            ),
            // `%1` is not `%10`, nor an escaped `%%1`.
            ("ld.global.f32 %1, [%10];", 1, (false, false, true)),
            ("ld.global.f32 %0, [%10];", 1, (false, false, false)),
            ("st.global.f32 [%%1], %0;", 1, (false, false, false)),
            ("ld.global.f32 %[v], [%[p]];", 1, (false, false, true)),
            // A vector's registers are one operand.
            (
                "ld.global.v4.f32 {%0, %1, %2, %3}, [%4];",
                4,
                (true, false, false),
            ),
            (
                "{ .reg .b64 a; } st.global.f32 [%1], %0;",
                1,
                (false, true, false),
            ),
        ];
        for (template, operand, expected) in cases {
            assert_eq!(operand_use(template, operand), expected, "{template}");
        }
    }
}
