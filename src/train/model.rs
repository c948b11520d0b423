//! The network in f32: the forward pass that mirrors the integer one
//! (clipped ReLUs at 1.0, side to move's half first), its gradient, and
//! Adam.

use bashni_engine::nnue::{FloatNetwork, L1, L2, MAX_HIDDEN_WEIGHT};

/// The first layer's weights and biases stay within this, so the i16
/// accumulator cannot overflow (a position has at most ~100 features on).
const MAX_FT_WEIGHT: f32 = 2.0;

/// One training position: its features from the side to move's view and
/// from the other side's, and the target in 0..=1.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Features of the side to move's perspective.
    pub stm: Vec<u16>,
    /// Features of the other perspective.
    pub other: Vec<u16>,
    /// What `sigmoid(output)` should be.
    pub target: f32,
}

/// The values of one forward pass that the backward pass needs.
struct Trace {
    acc: [[f32; L1]; 2],
    z1: [f32; L2],
    output: f32,
}

/// The logistic function: a network output as a win probability.
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

fn crelu(x: f32) -> f32 {
    x.clamp(0.0, 1.0)
}

/// The derivative of the clipped ReLU (0 on the flat parts).
fn crelu_slope(x: f32) -> f32 {
    if x > 0.0 && x < 1.0 { 1.0 } else { 0.0 }
}

fn forward(net: &FloatNetwork, sample: &Sample) -> Trace {
    let mut acc = [[0f32; L1]; 2];
    for (half, features) in acc.iter_mut().zip([&sample.stm, &sample.other]) {
        half.copy_from_slice(&net.ft_bias);
        for &f in features {
            let row = &net.ft_weights[f as usize * L1..(f as usize + 1) * L1];
            half.iter_mut().zip(row).for_each(|(a, w)| *a += w);
        }
    }
    let input: Vec<f32> = acc.iter().flatten().map(|&a| crelu(a)).collect();
    let mut z1 = [0f32; L2];
    for (j, z) in z1.iter_mut().enumerate() {
        let row = &net.l1_weights[j * 2 * L1..(j + 1) * 2 * L1];
        *z = net.l1_bias[j] + row.iter().zip(&input).map(|(w, a)| w * a).sum::<f32>();
    }
    let output = net.out_bias
        + z1.iter()
            .zip(&net.out_weights)
            .map(|(&z, w)| crelu(z) * w)
            .sum::<f32>();
    Trace { acc, z1, output }
}

/// The network's output (before the sigmoid) for one sample.
pub fn predict(net: &FloatNetwork, sample: &Sample) -> f32 {
    forward(net, sample).output
}

/// The squared error of one sample.
pub fn loss(net: &FloatNetwork, sample: &Sample) -> f32 {
    (sigmoid(predict(net, sample)) - sample.target).powi(2)
}

/// Add the gradient of one sample's loss to `grad`; returns the loss.
pub fn backward(net: &FloatNetwork, sample: &Sample, grad: &mut FloatNetwork) -> f32 {
    let trace = forward(net, sample);
    let p = sigmoid(trace.output);
    let g = 2.0 * (p - sample.target) * p * (1.0 - p);
    grad.out_bias += g;
    let mut dz1 = [0f32; L2];
    for (j, d) in dz1.iter_mut().enumerate() {
        grad.out_weights[j] += g * crelu(trace.z1[j]);
        *d = g * net.out_weights[j] * crelu_slope(trace.z1[j]);
    }
    let input: Vec<f32> = trace.acc.iter().flatten().map(|&a| crelu(a)).collect();
    let mut d_input = vec![0f32; 2 * L1];
    for (j, &d) in dz1.iter().enumerate().filter(|(_, d)| **d != 0.0) {
        grad.l1_bias[j] += d;
        let range = j * 2 * L1..(j + 1) * 2 * L1;
        let (row, grad_row) = (&net.l1_weights[range.clone()], &mut grad.l1_weights[range]);
        for k in 0..2 * L1 {
            grad_row[k] += d * input[k];
            d_input[k] += d * row[k];
        }
    }
    for (half, features) in [&sample.stm, &sample.other].into_iter().enumerate() {
        let d_acc: Vec<f32> = (0..L1)
            .map(|i| d_input[half * L1 + i] * crelu_slope(trace.acc[half][i]))
            .collect();
        grad.ft_bias
            .iter_mut()
            .zip(&d_acc)
            .for_each(|(b, d)| *b += d);
        for &f in features {
            let row = &mut grad.ft_weights[f as usize * L1..(f as usize + 1) * L1];
            row.iter_mut().zip(&d_acc).for_each(|(w, d)| *w += d);
        }
    }
    (p - sample.target).powi(2)
}

/// A network of `net`'s shape with every weight 0 (a gradient to sum into).
pub fn zeros_like(net: &FloatNetwork) -> FloatNetwork {
    let mut zero = net.clone();
    slices_mut(&mut zero).into_iter().for_each(|s| s.fill(0.0));
    zero
}

/// Multiply every weight by `factor`.
pub fn scale(net: &mut FloatNetwork, factor: f32) {
    slices_mut(net)
        .into_iter()
        .for_each(|s| s.iter_mut().for_each(|w| *w *= factor));
}

/// Add `other` to `sum`, weight by weight.
pub fn add_into(sum: &mut FloatNetwork, other: &FloatNetwork) {
    for (a, b) in slices_mut(sum).into_iter().zip(slices(other)) {
        a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
    }
}

fn slices(net: &FloatNetwork) -> [&[f32]; 6] {
    [
        &net.ft_weights,
        &net.ft_bias,
        &net.l1_weights,
        &net.l1_bias,
        &net.out_weights,
        std::slice::from_ref(&net.out_bias),
    ]
}

fn slices_mut(net: &mut FloatNetwork) -> [&mut [f32]; 6] {
    [
        &mut net.ft_weights,
        &mut net.ft_bias,
        &mut net.l1_weights,
        &mut net.l1_bias,
        &mut net.out_weights,
        std::slice::from_mut(&mut net.out_bias),
    ]
}

/// Adam's moments, shaped like the network.
pub struct Adam {
    m: FloatNetwork,
    v: FloatNetwork,
    steps: i32,
    rate: f32,
    weight_decay: f32,
}

/// Which of [`slices`] are weights (decayed) rather than biases: a bias
/// only shifts a unit, pulling it to 0 would not make the fit simpler.
const IS_WEIGHT: [bool; 6] = [true, false, true, false, true, false];

impl Adam {
    /// Fresh moments for `net`'s shape; `weight_decay` shrinks every
    /// weight by `rate * weight_decay` of itself each step (AdamW's
    /// decoupled decay: not through the moments, so rarely active input
    /// features decay as fast as common ones).
    pub fn new(net: &FloatNetwork, rate: f32, weight_decay: f32) -> Adam {
        Adam {
            m: zeros_like(net),
            v: zeros_like(net),
            steps: 0,
            rate,
            weight_decay,
        }
    }

    /// Steps from now on are `rate` long (a schedule lowers it).
    pub fn set_rate(&mut self, rate: f32) {
        self.rate = rate;
    }

    /// One step along the mean gradient `grad` (after the decay), then the
    /// weights are held inside what quantisation can represent.
    pub fn step(&mut self, net: &mut FloatNetwork, grad: &FloatNetwork) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        self.steps += 1;
        let c1 = 1.0 - B1.powi(self.steps);
        let c2 = 1.0 - B2.powi(self.steps);
        let limits = [
            MAX_FT_WEIGHT,
            MAX_FT_WEIGHT,
            MAX_HIDDEN_WEIGHT,
            f32::MAX,
            f32::MAX,
            f32::MAX,
        ];
        let parts = slices_mut(net)
            .into_iter()
            .zip(slices(grad))
            .zip(
                slices_mut(&mut self.m)
                    .into_iter()
                    .zip(slices_mut(&mut self.v)),
            )
            .zip(limits)
            .zip(IS_WEIGHT);
        for ((((w, g), (m, v)), limit), is_weight) in parts {
            // Exactly 1 without decay, so old runs' weights come out the same.
            let keep = if is_weight {
                1.0 - self.rate * self.weight_decay
            } else {
                1.0
            };
            for i in 0..w.len() {
                m[i] = B1 * m[i] + (1.0 - B1) * g[i];
                v[i] = B2 * v[i] + (1.0 - B2) * g[i] * g[i];
                let step = self.rate * (m[i] / c1) / ((v[i] / c2).sqrt() + 1e-8);
                w[i] = (w[i] * keep - step).clamp(-limit, limit);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bashni_rules::Variant;

    /// With a zero gradient a step only decays: every weight shrinks by
    /// exactly `rate * decay` of itself, biases stay, and without decay
    /// nothing moves.
    #[test]
    fn weight_decay_shrinks_weights_not_biases() {
        let net = FloatNetwork::random(Variant::Lasca, 3);
        let zero = zeros_like(&net);
        let mut decayed = net.clone();
        Adam::new(&net, 0.01, 2.0).step(&mut decayed, &zero);
        let mut plain = net.clone();
        Adam::new(&net, 0.01, 0.0).step(&mut plain, &zero);
        for (part, ((before, after), same)) in slices(&net)
            .into_iter()
            .zip(slices(&decayed))
            .zip(slices(&plain))
            .enumerate()
        {
            assert_eq!(before, same, "part {part} moved without decay");
            for (b, a) in before.iter().zip(after) {
                let wanted = if IS_WEIGHT[part] {
                    b * (1.0 - 0.02)
                } else {
                    *b
                };
                assert_eq!(*a, wanted, "part {part}");
            }
        }
        assert!(net.ft_weights.iter().any(|&w| w != 0.0));
        assert!(net.out_weights.iter().any(|&w| w != 0.0));
    }
}
