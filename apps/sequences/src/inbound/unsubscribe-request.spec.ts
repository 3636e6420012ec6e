import { asksToUnsubscribe, ownText } from './unsubscribe-request';

const ASKS: [string, string][] = [
  ['en', 'Unsubscribe'],
  ['en', 'Please unsubscribe me.'],
  ['en', 'How do I unsubscribe from this?'],
  ['en', 'Remove me from your list'],
  ['en', 'please remove my email address from your database'],
  ['en', 'Take me off your mailing list, thanks'],
  ['en', 'Stop emailing me.'],
  ['en', 'Please stop sending me these emails'],
  ['en', 'STOP'],
  ['en', 'stop!'],
  ['en', 'Do not contact me again.'],
  ['en', "Please don’t email me anymore"],
  ['en', 'Do not contact me.'],
  ['en', 'Not interested in further emails.'],
  ['en', "I'm not interested in receiving any more emails from you"],
  ['en', 'No more emails please'],
  ['en', "I don't want to receive any more emails"],
  ['en', 'I do not wish to be contacted'],
  ['en', 'Please opt me out'],
  ['en', 'opt-out'],
  ['en', 'No thanks, remove me'],
  ['en', 'Not sure how I got on this list, but unsubscribe me'],
  ['de', 'Bitte abmelden'],
  ['de', 'Melden Sie mich bitte ab.'],
  ['de', 'Bitte tragen Sie mich aus Ihrem Verteiler aus'],
  ['de', 'Bitte austragen, danke'],
  ['de', 'Keine weiteren E-Mails bitte'],
  ['de', 'Ich möchte keine Mails mehr erhalten'],
  ['de', 'Bitte nicht mehr kontaktieren.'],
  ['de', 'Kontaktieren Sie mich bitte nicht mehr'],
  ['de', 'Entfernen Sie mich aus Ihrer Liste'],
  ['de', 'Kein Interesse an weiteren E-Mails'],
  ['de', 'Stopp'],
  ['fr', 'Désabonner'],
  ['fr', 'Merci de me désinscrire'],
  ['fr', 'Veuillez me désabonner de votre liste'],
  ['fr', 'Retirez-moi de votre liste svp'],
  ['fr', "Ne m'envoyez plus d'e-mails"],
  ['fr', 'Ne me contactez plus, merci'],
  ['fr', 'Je ne souhaite plus recevoir vos messages'],
  ['fr', "Arrêtez de m'écrire"],
  ['fr', 'Pas intéressé par vos mails'],
  ['es', 'Por favor, denme de baja'],
  ['es', 'Quiero darme de baja'],
  ['es', 'Baja'],
  ['es', 'Quiero cancelar mi suscripción'],
  ['es', 'Elimínenme de su lista'],
  ['es', 'No me envíen más correos'],
  ['es', 'No quiero recibir más correos'],
  ['es', 'Dejen de escribirme, gracias'],
  ['es', 'No me interesan sus correos'],
  ['nl', 'Afmelden a.u.b.'],
  ['nl', 'Graag afmelden'],
  ['nl', 'Meld mij af'],
  ['nl', 'Schrijf me uit van deze lijst'],
  ['nl', 'Ik wil me uitschrijven'],
  ['nl', 'Verwijder mij van uw lijst'],
  ['nl', 'Geen e-mails meer graag'],
  ['nl', 'Mail mij niet meer'],
  ['nl', 'Stop met mailen'],
  ['nl', 'Geen interesse in verdere e-mails'],
  ['it', 'Cancellatemi dalla vostra lista'],
  ['it', 'Vorrei disiscrivermi'],
  ['it', 'Rimuovetemi, grazie'],
  ['it', 'Non inviatemi più email'],
  ['it', 'Non voglio più ricevere email'],
  ['it', 'Non desidero ricevere ulteriori comunicazioni'],
  ['it', 'Smettete di scrivermi'],
  ['it', 'Non sono interessato a ulteriori email'],
];

const ORDINARY: [string, string][] = [
  ['en', 'Sounds good, call me tomorrow.'],
  ['en', 'Please don\'t remove me, I like these updates'],
  ['en', 'Do not unsubscribe me!'],
  ['en', "I don't want to unsubscribe, just send less often"],
  ['en', 'No need to remove me from the list'],
  ['en', "Don't stop emailing me, this is great"],
  ['en', "Don't email me, call me on +44 20 7946 0000"],
  ['en', 'Not interested right now, try me next quarter'],
  ['en', 'Drop me a line next week'],
  ['en', 'I never subscribed to anything but this looks interesting'],
  ['en', 'Stop by our booth at the fair!'],
  ['de', 'Bitte nicht abmelden, das ist interessant'],
  ['de', 'Gerne, rufen Sie mich an.'],
  ['de', 'Ich habe keine E-Mail von Ihnen erhalten'],
  ['fr', 'Ne me désabonnez pas'],
  ['fr', 'Je ne veux pas me désinscrire'],
  ['fr', 'Volontiers, appelez-moi demain'],
  ['es', 'No quiero darme de baja'],
  ['es', 'Me interesa, hablemos el lunes'],
  ['nl', 'Niet afmelden alstublieft'],
  ['nl', 'Ik wil me niet uitschrijven'],
  ['nl', 'Klinkt goed, bel me maar'],
  ['it', 'Non cancellatemi, grazie'],
  ['it', 'Mi interessa, sentiamoci domani'],
];

describe('asksToUnsubscribe: a reply that asks to stop', () => {
  it.each(ASKS)('%s: %s', (_lang, text) => {
    expect(asksToUnsubscribe({ text })).toBe(true);
  });
  it.each(ORDINARY)('%s, an ordinary reply: %s', (_lang, text) => {
    expect(asksToUnsubscribe({ text })).toBe(false);
  });

  it('only the reply\'s own words: our quoted footer, a Gmail attribution, an Outlook original and the signature do not count', () => {
    const quoted = ['Sounds good, call me.', '', 'On Mon, 5 Jan 2026 at 10:00, Sales <sales@sender.test> wrote:', '> Hi Ada,', '> Unsubscribe: https://x.test/u/enr_1'].join('\n');
    expect(asksToUnsubscribe({ text: quoted })).toBe(false);
    const outlook = ['Thanks, interested.', '', 'From: Sales <sales@sender.test>', 'Sent: Monday, 5 January 2026 10:00', 'To: Ada', 'Subject: Hello', '', 'Stop emailing? Unsubscribe here: https://x.test'].join('\n');
    expect(asksToUnsubscribe({ text: outlook })).toBe(false);
    expect(asksToUnsubscribe({ text: ['Call me.', '-- ', 'Ada | To unsubscribe from my newsletter reply STOP'].join('\n') })).toBe(false);
    expect(asksToUnsubscribe({ text: ['-----Original Message-----', 'unsubscribe'].join('\n') })).toBe(false);
    const bottomPosted = ['On Mon, Sales <sales@sender.test> wrote:', '> Hi Ada', '', 'Please remove me.'].join('\n');
    expect(asksToUnsubscribe({ text: bottomPosted })).toBe(true);
    expect(ownText(bottomPosted).trim()).toBe('Please remove me.');
  });

  it('a subject the replier wrote counts, ours with "Re:" does not', () => {
    expect(asksToUnsubscribe({ text: '', subject: 'Unsubscribe', originalSubject: 'Hello Ada' })).toBe(true);
    expect(asksToUnsubscribe({ text: 'ok', subject: 'AW: Hello Ada - bitte abmelden', originalSubject: 'Hello Ada' })).toBe(true);
    expect(asksToUnsubscribe({ text: 'Sure, talk soon', subject: 'Re: How to unsubscribe from legacy tools', originalSubject: 'How to unsubscribe from legacy tools' })).toBe(false);
    expect(asksToUnsubscribe({ text: 'Sure', subject: 'RE: Re: Hello Ada', originalSubject: 'Hello Ada' })).toBe(false);
  });
});
