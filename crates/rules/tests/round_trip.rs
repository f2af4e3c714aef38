//! Any rule tree the language can say renders to words that parse back to the same tree.

use koanscope_rules::{
    AttrValue, CmpOp, Cond, EachOf, Filter, Key, Measure, Polarity, Quant, Relation, Rule,
    parse_rule, render,
};
use koanscope_scene::{Color, Orientation, Size};
use proptest::prelude::*;

fn quant() -> impl Strategy<Value = Quant> {
    prop_oneof![
        (0u32..6).prop_map(Quant::Exactly),
        (1u32..6).prop_map(Quant::AtLeast),
        (0u32..6).prop_map(Quant::AtMost),
        Just(Quant::Odd),
        Just(Quant::Even),
    ]
}

fn atom() -> impl Strategy<Value = Filter> {
    prop_oneof![
        proptest::sample::select(Color::ALL).prop_map(Filter::Color),
        proptest::sample::select(Size::ALL).prop_map(Filter::Size),
        proptest::sample::select(Orientation::ALL).prop_map(Filter::Orientation),
        Just(Filter::UpsideDown),
        any::<bool>().prop_map(Filter::Grounded),
        Just(Filter::Largest),
        Just(Filter::Smallest),
        Just(Filter::Highest),
        Just(Filter::Lowest),
        Just(Filter::Stacked),
        Just(Filter::InTower),
        Just(Filter::TopOfTower),
        Just(Filter::BottomOfTower),
    ]
}

const RELATIONS: &[Relation] = &[
    Relation::Touching,
    Relation::PointingAt,
    Relation::PointingFirstAt,
    Relation::PointedAtBy,
    Relation::InsertedInto,
    Relation::FullyInsertedInto,
    Relation::Receiving,
    Relation::NestedIn,
    Relation::Holding,
    Relation::On,
    Relation::Under,
    Relation::Higher,
    Relation::Lower,
    Relation::Larger,
    Relation::Smaller,
    Relation::SameColor,
    Relation::SameSize,
    Relation::SameDirection,
    Relation::OppositeDirection,
    Relation::DifferentDirection,
];

fn filter() -> impl Strategy<Value = Filter> {
    atom().prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            (proptest::sample::select(RELATIONS), inner.clone())
                .prop_map(|(r, f)| Filter::rel(r, f)),
            (proptest::sample::select(RELATIONS)).prop_map(|r| Filter::rel(r, Filter::Any)),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| Filter::PointsThrough(Box::new(a), Box::new(b))),
            proptest::collection::vec(inner.clone(), 2..4).prop_map(Filter::and),
            proptest::collection::vec(inner.clone(), 2..4).prop_map(Filter::or),
            inner.prop_map(Filter::not),
        ]
    })
}

fn maybe_any() -> impl Strategy<Value = Filter> {
    prop_oneof![1 => Just(Filter::Any), 3 => filter()]
}

fn never_empty() -> impl Strategy<Value = Filter> {
    proptest::sample::select(vec![
        Filter::Any,
        Filter::Largest,
        Filter::Smallest,
        Filter::Highest,
        Filter::Lowest,
    ])
}

fn key() -> impl Strategy<Value = Key> {
    proptest::sample::select(vec![
        Key::Color,
        Key::Size,
        Key::ColorAndSize,
        Key::Orientation,
    ])
}

fn leaf() -> impl Strategy<Value = Cond> {
    prop_oneof![
        (maybe_any(), quant()).prop_map(|(filter, quant)| Cond::Count { filter, quant }),
        (maybe_any(), quant()).prop_map(|(filter, quant)| Cond::Pips { filter, quant }),
        (key(), maybe_any(), quant()).prop_map(|(key, filter, quant)| Cond::Kinds {
            key,
            filter,
            quant
        }),
        (
            prop_oneof![key(), Just(Key::Direction)],
            maybe_any(),
            quant()
        )
            .prop_map(|(key, filter, quant)| Cond::Group { key, filter, quant }),
        (
            proptest::sample::select(vec![EachOf::FourColors, EachOf::Sizes]),
            maybe_any(),
            quant()
        )
            .prop_map(|(each, filter, quant)| Cond::Each {
                each,
                filter,
                quant
            }),
        (
            proptest::sample::select(vec![Measure::Count, Measure::Pips]),
            proptest::sample::select(vec![CmpOp::More, CmpOp::Fewer, CmpOp::AsMany]),
            maybe_any(),
            maybe_any()
        )
            .prop_map(|(measure, op, left, right)| Cond::Compare {
                measure,
                op,
                left,
                right
            }),
        (maybe_any(), filter()).prop_map(|(domain, pred)| Cond::Majority { domain, pred }),
        prop_oneof![
            proptest::sample::select(Color::ALL).prop_map(AttrValue::Color),
            proptest::sample::select(Size::ALL).prop_map(AttrValue::Size),
            proptest::sample::select(Orientation::ALL).prop_map(AttrValue::Orientation),
        ]
        .prop_map(Cond::Plurality),
        (never_empty(), filter()).prop_map(|(domain, pred)| Cond::All { domain, pred }),
        (never_empty(), key()).prop_map(|(domain, key)| Cond::AllSame { domain, key }),
        (maybe_any(), filter()).prop_map(|(domain, pred)| Cond::Unique { domain, pred }),
        (quant(), quant(), any::<bool>()).prop_map(|(size, quant, stacks)| Cond::Towers {
            size,
            quant,
            stacks
        }),
        (quant(), quant()).prop_map(|(size, quant)| Cond::Nests { size, quant }),
    ]
}

fn cond() -> impl Strategy<Value = Cond> {
    leaf().prop_recursive(3, 10, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 2..4).prop_map(Cond::and),
            proptest::collection::vec(inner.clone(), 2..4).prop_map(Cond::or),
            inner.clone().prop_map(Cond::not),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Cond::Xor(Box::new(a), Box::new(b))),
            (inner.clone(), inner).prop_map(|(a, b)| Cond::Iff(Box::new(a), Box::new(b))),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn rendering_parses_back_to_the_same_rule(cond in cond(), negative in any::<bool>()) {
        let polarity = if negative { Polarity::HasNot } else { Polarity::Has };
        let rule = Rule { polarity, cond };
        let text = render::rule(&rule);
        let back = parse_rule(&text);
        prop_assert!(back.is_ok(), "{text}\n{:?}\n{back:?}", rule);
        prop_assert_eq!(back.unwrap(), rule, "{}", text);
    }
}
