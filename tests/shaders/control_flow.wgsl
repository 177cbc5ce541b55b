// Every structured statement naga has: if / else, loops with break, continue,
// `continuing` and `break if`, for and while loops, switches with several labels per case
// and a default in the middle, early return, nested blocks, and calls.
// Written for oxir's front-end tests.

@group(0) @binding(0) var<storage, read_write> out: array<i32>;

fn classify(x: i32) -> i32 {
    if x < 0 {
        return -1;
    } else if x == 0 {
        return 0;
    }
    return 1;
}

fn sum_to(n: i32) -> i32 {
    var total = 0;
    for (var i = 0; i < n; i++) {
        if i % 3 == 0 {
            continue;
        }
        total += i;
    }
    return total;
}

fn countdown(start: i32) -> i32 {
    var n = start;
    var steps = 0;
    while n > 0 {
        var stride: i32;
        stride += 2;
        n -= stride;
        steps += 1;
    }
    return steps;
}

fn with_continuing(limit: i32) -> i32 {
    var i = 0;
    var acc = 0;
    loop {
        if i == 7 {
            break;
        }
        acc += i;
        continuing {
            i += 1;
            break if i >= limit;
        }
    }
    return acc;
}

fn pick(selector: u32) -> i32 {
    var result = 0;
    switch selector {
        case 0u, 1u: {
            result = 10;
        }
        default: {
            result = -5;
        }
        case 2u: {
            result = 20;
            if result > 0 {
                break;
            }
            result = 99;
        }
        case 3u, 4u, 5u: {
            return 30;
        }
    }
    return result;
}

fn nested(n: i32) -> i32 {
    var hits = 0;
    for (var i = 0; i < n; i++) {
        for (var j = 0; j < n; j++) {
            switch (i + j) % 4 {
                case 0: { continue; }
                case 1: { break; }
                default: {
                    if j > i { break; }
                    hits += 1;
                }
            }
            {
                hits += 100;
            }
        }
    }
    return hits;
}

fn infinite_with_return(x: i32) -> i32 {
    var y = x;
    loop {
        y += 1;
        if y > 10 {
            return y;
        }
    }
    return 0;
}

fn every_case_returns(x: i32) -> i32 {
    switch x {
        case 0: { return 0; }
        case 1, 2: { return 10; }
        default: { return x * 2; }
    }
}

@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let x = i32(id.x);
    out[0] = classify(x - 3);
    out[1] = sum_to(x);
    out[2] = countdown(x);
    out[3] = with_continuing(x);
    out[4] = pick(id.x);
    out[5] = nested(x);
    out[6] = infinite_with_return(x);
    out[7] = every_case_returns(x);
}
